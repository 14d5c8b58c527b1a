
CREATE TABLE public.wh_auth_cache (
    cache_key text NOT NULL,
    user_name text NOT NULL,
    expires bigint NOT NULL
);

CREATE TABLE public.wh_counter (
    id integer NOT NULL,
    last_value bigint NOT NULL
);

CREATE TABLE public.wh_events (
    seq bigint NOT NULL,
    notification_id text NOT NULL,
    event_type text,
    event_time text,
    payment_id text,
    status text,
    received_at bigint NOT NULL,
    body text NOT NULL
);

CREATE TABLE public.wh_meta (
    id integer NOT NULL,
    schema_version integer NOT NULL
);

CREATE TABLE public.wh_quarantine (
    id bigint NOT NULL,
    received_at bigint NOT NULL,
    code text NOT NULL,
    message text,
    details text NOT NULL,
    notification_id text,
    body bytea NOT NULL
);

INSERT INTO public.wh_auth_cache VALUES ('20a3e8e20a976e422fe83e4fcd61a021b3cec06f81632aa8c2716a82556f5918', 'bank', 1795889687436698);

INSERT INTO public.wh_counter VALUES (1, 7);
INSERT INTO public.wh_counter VALUES (2, 1);

INSERT INTO public.wh_events VALUES (1, '00000000-0000-4000-8000-000000000001', 'wire.status', '2026-11-20T10:00:00Z', 'P-ALPHA', 'Review', 1795886086338736, '{
  "notificationId": "00000000-0000-4000-8000-000000000001",
  "eventType": "wire.status",
  "eventDateTime": "2026-11-20T10:00:00Z",
  "data": {
    "wireEventInfo": {
      "paymentId": "P-ALPHA",
      "status": "Review",
      "exceptionInfo": [],
      "IMAD": "20261122MMQFMP9K000481",
      "OMAD": "20261122QMGFNP31000977",
      "originalWire": {
        "wireInfo": {
          "paymentAmount": "15250.00",
          "referenceId": "Not Provided",
          "endToEndId": "5b2f0c1e-7d4a-4c1b-9e8f-0a1b2c3d4e5f"
        },
        "originatorInfo": {
          "accountNumber": "4400123456789",
          "accountType": "D",
          "name": "Northwind Traders LLC",
          "wireCompanyId": "NWT001",
          "wireCompanyName": "Northwind Traders"
        },
        "beneficiaryInfo": {
          "accountNumber": "000123456789",
          "accountType": "D",
          "name": "Contoso Supplies",
          "address": {
            "addressLine": "400 Harbor Way",
            "city": "Oakland",
            "state": "CA",
            "postalCode": "94607"
          },
          "institutionInfo": {
            "name": "Example Savings Bank",
            "routingNumber": "121000358",
            "address": {
              "addressLine": "1 Market St",
              "city": "San Francisco",
              "state": "CA",
              "postalCode": "94105"
            }
          }
        },
        "remittanceInformation": "INV 2026-1107 net 30"
      }
    }
  }
}
');
INSERT INTO public.wh_events VALUES (2, '00000000-0000-4000-8000-000000000002', 'wire.status', '2026-11-20T11:00:00Z', 'P-ALPHA', 'Complete', 1795886086794207, '{
  "notificationId": "00000000-0000-4000-8000-000000000002",
  "eventType": "wire.status",
  "eventDateTime": "2026-11-20T11:00:00Z",
  "data": {
    "wireEventInfo": {
      "paymentId": "P-ALPHA",
      "status": "Complete",
      "exceptionInfo": [],
      "IMAD": "20261122MMQFMP9K000481",
      "OMAD": "20261122QMGFNP31000977",
      "originalWire": {
        "wireInfo": {
          "paymentAmount": "15250.00",
          "referenceId": "Not Provided",
          "endToEndId": "5b2f0c1e-7d4a-4c1b-9e8f-0a1b2c3d4e5f"
        },
        "originatorInfo": {
          "accountNumber": "4400123456789",
          "accountType": "D",
          "name": "Northwind Traders LLC",
          "wireCompanyId": "NWT001",
          "wireCompanyName": "Northwind Traders"
        },
        "beneficiaryInfo": {
          "accountNumber": "000123456789",
          "accountType": "D",
          "name": "Contoso Supplies",
          "address": {
            "addressLine": "400 Harbor Way",
            "city": "Oakland",
            "state": "CA",
            "postalCode": "94607"
          },
          "institutionInfo": {
            "name": "Example Savings Bank",
            "routingNumber": "121000358",
            "address": {
              "addressLine": "1 Market St",
              "city": "San Francisco",
              "state": "CA",
              "postalCode": "94105"
            }
          }
        },
        "remittanceInformation": "INV 2026-1107 net 30"
      }
    }
  }
}
');
INSERT INTO public.wh_events VALUES (3, '00000000-0000-4000-8000-000000000003', 'wire.status', '2026-11-20T11:05:00Z', 'P-BRAVO', 'Complete', 1795886086964546, '{
  "notificationId": "00000000-0000-4000-8000-000000000003",
  "eventType": "wire.status",
  "eventDateTime": "2026-11-20T11:05:00Z",
  "data": {
    "wireEventInfo": {
      "paymentId": "P-BRAVO",
      "status": "Complete",
      "exceptionInfo": [],
      "IMAD": "20261122MMQFMP9K000481",
      "OMAD": "20261122QMGFNP31000977",
      "originalWire": {
        "wireInfo": {
          "paymentAmount": "15250.00",
          "referenceId": "Not Provided",
          "endToEndId": "5b2f0c1e-7d4a-4c1b-9e8f-0a1b2c3d4e5f"
        },
        "originatorInfo": {
          "accountNumber": "4400123456789",
          "accountType": "D",
          "name": "Northwind Traders LLC",
          "wireCompanyId": "NWT001",
          "wireCompanyName": "Northwind Traders"
        },
        "beneficiaryInfo": {
          "accountNumber": "000123456789",
          "accountType": "D",
          "name": "Contoso Supplies",
          "address": {
            "addressLine": "400 Harbor Way",
            "city": "Oakland",
            "state": "CA",
            "postalCode": "94607"
          },
          "institutionInfo": {
            "name": "Example Savings Bank",
            "routingNumber": "121000358",
            "address": {
              "addressLine": "1 Market St",
              "city": "San Francisco",
              "state": "CA",
              "postalCode": "94105"
            }
          }
        },
        "remittanceInformation": "INV 2026-1107 net 30"
      }
    }
  }
}
');
INSERT INTO public.wh_events VALUES (4, '00000000-0000-4000-8000-000000000004', 'wire.status', '2026-11-20T11:10:00Z', 'P-CHARLIE', 'Review', 1795886087122961, '{
  "notificationId": "00000000-0000-4000-8000-000000000004",
  "eventType": "wire.status",
  "eventDateTime": "2026-11-20T11:10:00Z",
  "data": {
    "wireEventInfo": {
      "paymentId": "P-CHARLIE",
      "status": "Review",
      "exceptionInfo": [],
      "IMAD": "20261122MMQFMP9K000481",
      "OMAD": "20261122QMGFNP31000977",
      "originalWire": {
        "wireInfo": {
          "paymentAmount": "15250.00",
          "referenceId": "Not Provided",
          "endToEndId": "5b2f0c1e-7d4a-4c1b-9e8f-0a1b2c3d4e5f"
        },
        "originatorInfo": {
          "accountNumber": "4400123456789",
          "accountType": "D",
          "name": "Northwind Traders LLC",
          "wireCompanyId": "NWT001",
          "wireCompanyName": "Northwind Traders"
        },
        "beneficiaryInfo": {
          "accountNumber": "000123456789",
          "accountType": "D",
          "name": "Contoso Supplies",
          "address": {
            "addressLine": "400 Harbor Way",
            "city": "Oakland",
            "state": "CA",
            "postalCode": "94607"
          },
          "institutionInfo": {
            "name": "Example Savings Bank",
            "routingNumber": "121000358",
            "address": {
              "addressLine": "1 Market St",
              "city": "San Francisco",
              "state": "CA",
              "postalCode": "94105"
            }
          }
        },
        "remittanceInformation": "INV 2026-1107 net 30"
      }
    }
  }
}
');
INSERT INTO public.wh_events VALUES (5, '00000000-0000-4000-8000-000000000005', 'wire.status', '2026-11-20T11:20:00Z', 'P-CHARLIE', 'Complete', 1795886087268454, '{
  "notificationId": "00000000-0000-4000-8000-000000000005",
  "eventType": "wire.status",
  "eventDateTime": "2026-11-20T11:20:00Z",
  "data": {
    "wireEventInfo": {
      "paymentId": "P-CHARLIE",
      "status": "Complete",
      "exceptionInfo": [],
      "IMAD": "20261122MMQFMP9K000481",
      "OMAD": "20261122QMGFNP31000977",
      "originalWire": {
        "wireInfo": {
          "paymentAmount": "15250.00",
          "referenceId": "Not Provided",
          "endToEndId": "5b2f0c1e-7d4a-4c1b-9e8f-0a1b2c3d4e5f"
        },
        "originatorInfo": {
          "accountNumber": "4400123456789",
          "accountType": "D",
          "name": "Northwind Traders LLC",
          "wireCompanyId": "NWT001",
          "wireCompanyName": "Northwind Traders"
        },
        "beneficiaryInfo": {
          "accountNumber": "000123456789",
          "accountType": "D",
          "name": "Contoso Supplies",
          "address": {
            "addressLine": "400 Harbor Way",
            "city": "Oakland",
            "state": "CA",
            "postalCode": "94607"
          },
          "institutionInfo": {
            "name": "Example Savings Bank",
            "routingNumber": "121000358",
            "address": {
              "addressLine": "1 Market St",
              "city": "San Francisco",
              "state": "CA",
              "postalCode": "94105"
            }
          }
        },
        "remittanceInformation": "INV 2026-1107 net 30"
      }
    }
  }
}
');
INSERT INTO public.wh_events VALUES (6, '00000000-0000-4000-8000-000000000006', 'wire.status', '2026-11-20T12:00:00Z', 'P-DELTA', 'Exception', 1795886087436698, '{
  "notificationId": "00000000-0000-4000-8000-000000000006",
  "eventType": "wire.status",
  "eventDateTime": "2026-11-20T12:00:00Z",
  "data": {
    "wireEventInfo": {
      "paymentId": "P-DELTA",
      "status": "Exception",
      "exceptionInfo": [],
      "IMAD": "20261122MMQFMP9K000481",
      "OMAD": "20261122QMGFNP31000977",
      "originalWire": {
        "wireInfo": {
          "paymentAmount": "15250.00",
          "referenceId": "Not Provided",
          "endToEndId": "5b2f0c1e-7d4a-4c1b-9e8f-0a1b2c3d4e5f"
        },
        "originatorInfo": {
          "accountNumber": "4400123456789",
          "accountType": "D",
          "name": "Northwind Traders LLC",
          "wireCompanyId": "NWT001",
          "wireCompanyName": "Northwind Traders"
        },
        "beneficiaryInfo": {
          "accountNumber": "000123456789",
          "accountType": "D",
          "name": "Contoso Supplies",
          "address": {
            "addressLine": "400 Harbor Way",
            "city": "Oakland",
            "state": "CA",
            "postalCode": "94607"
          },
          "institutionInfo": {
            "name": "Example Savings Bank",
            "routingNumber": "121000358",
            "address": {
              "addressLine": "1 Market St",
              "city": "San Francisco",
              "state": "CA",
              "postalCode": "94105"
            }
          }
        },
        "remittanceInformation": "INV 2026-1107 net 30"
      }
    }
  }
}
');
INSERT INTO public.wh_events VALUES (7, '00000000-0000-4000-8000-000000000007', 'wire.status', '2026-11-20T09:00:00Z', 'P-DELTA', 'Review', 1795886087628127, '{
  "notificationId": "00000000-0000-4000-8000-000000000007",
  "eventType": "wire.status",
  "eventDateTime": "2026-11-20T09:00:00Z",
  "data": {
    "wireEventInfo": {
      "paymentId": "P-DELTA",
      "status": "Review",
      "exceptionInfo": [],
      "IMAD": "20261122MMQFMP9K000481",
      "OMAD": "20261122QMGFNP31000977",
      "originalWire": {
        "wireInfo": {
          "paymentAmount": "15250.00",
          "referenceId": "Not Provided",
          "endToEndId": "5b2f0c1e-7d4a-4c1b-9e8f-0a1b2c3d4e5f"
        },
        "originatorInfo": {
          "accountNumber": "4400123456789",
          "accountType": "D",
          "name": "Northwind Traders LLC",
          "wireCompanyId": "NWT001",
          "wireCompanyName": "Northwind Traders"
        },
        "beneficiaryInfo": {
          "accountNumber": "000123456789",
          "accountType": "D",
          "name": "Contoso Supplies",
          "address": {
            "addressLine": "400 Harbor Way",
            "city": "Oakland",
            "state": "CA",
            "postalCode": "94607"
          },
          "institutionInfo": {
            "name": "Example Savings Bank",
            "routingNumber": "121000358",
            "address": {
              "addressLine": "1 Market St",
              "city": "San Francisco",
              "state": "CA",
              "postalCode": "94105"
            }
          }
        },
        "remittanceInformation": "INV 2026-1107 net 30"
      }
    }
  }
}
');

INSERT INTO public.wh_meta VALUES (1, 2);

INSERT INTO public.wh_quarantine VALUES (1, 1795886088128926, 'schema_violation', 'the notification does not match the schema', '[{"field":"/data","problem":"is required"}]', '00000000-0000-4000-8000-000000000090', '\x7b226e6f74696669636174696f6e4964223a202230303030303030302d303030302d343030302d383030302d303030303030303030303930222c20226576656e7454797065223a2022776972652e737461747573222c20226576656e744461746554696d65223a2022323032362d31312d32305431303a30303a30305a227d0a');

ALTER TABLE ONLY public.wh_auth_cache
    ADD CONSTRAINT wh_auth_cache_pkey PRIMARY KEY (cache_key);

ALTER TABLE ONLY public.wh_counter
    ADD CONSTRAINT wh_counter_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.wh_events
    ADD CONSTRAINT wh_events_notification_id_key UNIQUE (notification_id);

ALTER TABLE ONLY public.wh_events
    ADD CONSTRAINT wh_events_pkey PRIMARY KEY (seq);

ALTER TABLE ONLY public.wh_meta
    ADD CONSTRAINT wh_meta_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.wh_quarantine
    ADD CONSTRAINT wh_quarantine_pkey PRIMARY KEY (id);

CREATE INDEX wh_events_payment ON public.wh_events USING btree (payment_id, seq);

CREATE INDEX wh_events_status ON public.wh_events USING btree (status, seq);

CREATE INDEX wh_events_time ON public.wh_events USING btree (event_time);

CREATE INDEX wh_events_type ON public.wh_events USING btree (event_type, seq);

