
CREATE TABLE public.wh_auth_cache (
    cache_key text NOT NULL,
    user_name text NOT NULL,
    expires bigint NOT NULL
);

CREATE TABLE public.wh_counter (
    id integer NOT NULL,
    last_value bigint NOT NULL
);

CREATE TABLE public.wh_delivery (
    event_id bigint NOT NULL,
    seq bigint NOT NULL,
    payment_id text,
    state integer NOT NULL,
    attempts integer NOT NULL,
    next_at bigint NOT NULL,
    lease_owner text,
    first_at bigint,
    received_at bigint NOT NULL,
    done_at bigint,
    http_status integer,
    answer text,
    reason text
);

CREATE SEQUENCE public.wh_event_ids
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

CREATE TABLE public.wh_events (
    id bigint NOT NULL,
    notification_id text NOT NULL,
    event_type text,
    event_time text,
    payment_id text,
    status text,
    event_instant bigint,
    received_at bigint NOT NULL,
    body text NOT NULL
);

CREATE TABLE public.wh_forward_cursor (
    id integer NOT NULL,
    last_seq bigint NOT NULL
);

CREATE TABLE public.wh_meta (
    id integer NOT NULL,
    schema_version integer NOT NULL
);

CREATE TABLE public.wh_order (
    seq bigint NOT NULL,
    event_id bigint NOT NULL,
    payment_id text,
    status text
);

CREATE TABLE public.wh_payments (
    payment_id text NOT NULL,
    status text NOT NULL,
    event_instant bigint,
    event_time text,
    event_id bigint NOT NULL,
    notification_id text NOT NULL,
    events bigint NOT NULL,
    updated_at bigint NOT NULL
);

CREATE TABLE public.wh_pending (
    event_id bigint NOT NULL
);

CREATE TABLE public.wh_quarantine (
    id bigint NOT NULL,
    received_at bigint NOT NULL,
    code text NOT NULL,
    message text,
    details text NOT NULL,
    notification_id text,
    body bytea NOT NULL,
    released_at bigint,
    released_event_id bigint
);

INSERT INTO public.wh_auth_cache VALUES ('a336b24f013ccbde463781d185a986c88b2b89c00ed644f8f18a3834ce64a350', 'bank', 1795889754792293);

INSERT INTO public.wh_counter VALUES (2, 1);

INSERT INTO public.wh_delivery VALUES (5, 5, 'P-CHARLIE', 0, 0, 1795886154443369, NULL, NULL, 1795886152671679, NULL, NULL, NULL, NULL);
INSERT INTO public.wh_delivery VALUES (3, 3, 'P-BRAVO', 4, 1, 0, NULL, 1795886154443369, 1795886152277119, 1795886154484870, 400, 'HTTP 400', 'rejected by the application');
INSERT INTO public.wh_delivery VALUES (4, 4, 'P-CHARLIE', 1, 1, 1795889602498863, NULL, 1795886154443369, 1795886152482484, NULL, 503, 'HTTP 503', NULL);
INSERT INTO public.wh_delivery VALUES (1, 1, 'P-ALPHA', 3, 1, 0, NULL, 1795886154443369, 1795886151583334, 1795886154484870, NULL, NULL, NULL);
INSERT INTO public.wh_delivery VALUES (6, 6, 'P-DELTA', 3, 1, 0, NULL, 1795886154443369, 1795886152908755, 1795886154484870, NULL, NULL, NULL);
INSERT INTO public.wh_delivery VALUES (2, 2, 'P-ALPHA', 3, 1, 0, NULL, 1795886154484870, 1795886152105384, 1795886154509936, NULL, NULL, NULL);
INSERT INTO public.wh_delivery VALUES (7, 7, 'P-DELTA', 3, 1, 0, NULL, 1795886154484870, 1795886153075607, 1795886154509936, NULL, NULL, NULL);

INSERT INTO public.wh_events VALUES (1, '00000000-0000-4000-8000-000000000001', 'wire.status', '2026-11-20T10:00:00Z', 'P-ALPHA', 'Review', 1795168800000000, 1795886151583334, '{
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
INSERT INTO public.wh_events VALUES (2, '00000000-0000-4000-8000-000000000002', 'wire.status', '2026-11-20T11:00:00Z', 'P-ALPHA', 'Complete', 1795172400000000, 1795886152105384, '{
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
INSERT INTO public.wh_events VALUES (3, '00000000-0000-4000-8000-000000000003', 'wire.status', '2026-11-20T11:05:00Z', 'P-BRAVO', 'Complete', 1795172700000000, 1795886152277119, '{
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
INSERT INTO public.wh_events VALUES (4, '00000000-0000-4000-8000-000000000004', 'wire.status', '2026-11-20T11:10:00Z', 'P-CHARLIE', 'Review', 1795173000000000, 1795886152482484, '{
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
INSERT INTO public.wh_events VALUES (5, '00000000-0000-4000-8000-000000000005', 'wire.status', '2026-11-20T11:20:00Z', 'P-CHARLIE', 'Complete', 1795173600000000, 1795886152671679, '{
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
INSERT INTO public.wh_events VALUES (6, '00000000-0000-4000-8000-000000000006', 'wire.status', '2026-11-20T12:00:00Z', 'P-DELTA', 'Exception', 1795176000000000, 1795886152908755, '{
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
INSERT INTO public.wh_events VALUES (7, '00000000-0000-4000-8000-000000000007', 'wire.status', '2026-11-20T09:00:00Z', 'P-DELTA', 'Review', 1795165200000000, 1795886153075607, '{
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
INSERT INTO public.wh_events VALUES (9, '00000000-0000-4000-8000-000000000008', 'wire.status', '2026-11-20T13:00:00Z', 'P-ECHO', 'Complete', 1795179600000000, 1795886154792293, '{
  "notificationId": "00000000-0000-4000-8000-000000000008",
  "eventType": "wire.status",
  "eventDateTime": "2026-11-20T13:00:00Z",
  "data": {
    "wireEventInfo": {
      "paymentId": "P-ECHO",
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

INSERT INTO public.wh_forward_cursor VALUES (1, 7);

INSERT INTO public.wh_meta VALUES (1, 3);

INSERT INTO public.wh_order VALUES (1, 1, 'P-ALPHA', 'Review');
INSERT INTO public.wh_order VALUES (2, 2, 'P-ALPHA', 'Complete');
INSERT INTO public.wh_order VALUES (3, 3, 'P-BRAVO', 'Complete');
INSERT INTO public.wh_order VALUES (4, 4, 'P-CHARLIE', 'Review');
INSERT INTO public.wh_order VALUES (5, 5, 'P-CHARLIE', 'Complete');
INSERT INTO public.wh_order VALUES (6, 6, 'P-DELTA', 'Exception');
INSERT INTO public.wh_order VALUES (7, 7, 'P-DELTA', 'Review');
INSERT INTO public.wh_order VALUES (8, 9, 'P-ECHO', 'Complete');

INSERT INTO public.wh_payments VALUES ('P-ALPHA', 'Complete', 1795172400000000, '2026-11-20T11:00:00Z', 2, '00000000-0000-4000-8000-000000000002', 2, 1795886152105384);
INSERT INTO public.wh_payments VALUES ('P-BRAVO', 'Complete', 1795172700000000, '2026-11-20T11:05:00Z', 3, '00000000-0000-4000-8000-000000000003', 1, 1795886152277119);
INSERT INTO public.wh_payments VALUES ('P-CHARLIE', 'Complete', 1795173600000000, '2026-11-20T11:20:00Z', 5, '00000000-0000-4000-8000-000000000005', 2, 1795886152671679);
INSERT INTO public.wh_payments VALUES ('P-DELTA', 'Exception', 1795176000000000, '2026-11-20T12:00:00Z', 6, '00000000-0000-4000-8000-000000000006', 2, 1795886153075607);
INSERT INTO public.wh_payments VALUES ('P-ECHO', 'Complete', 1795179600000000, '2026-11-20T13:00:00Z', 9, '00000000-0000-4000-8000-000000000008', 1, 1795886154792293);

INSERT INTO public.wh_quarantine VALUES (1, 1795886153627433, 'schema_violation', 'the notification does not match the schema', '[{"field":"/data","problem":"is required"}]', '00000000-0000-4000-8000-000000000090', '\x7b226e6f74696669636174696f6e4964223a202230303030303030302d303030302d343030302d383030302d303030303030303030303930222c20226576656e7454797065223a2022776972652e737461747573222c20226576656e744461746554696d65223a2022323032362d31312d32305431303a30303a30305a227d0a', NULL, NULL);

SELECT pg_catalog.setval('public.wh_event_ids', 9, true);

ALTER TABLE ONLY public.wh_auth_cache
    ADD CONSTRAINT wh_auth_cache_pkey PRIMARY KEY (cache_key);

ALTER TABLE ONLY public.wh_counter
    ADD CONSTRAINT wh_counter_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.wh_delivery
    ADD CONSTRAINT wh_delivery_pkey PRIMARY KEY (event_id);

ALTER TABLE ONLY public.wh_events
    ADD CONSTRAINT wh_events_notification_id_key UNIQUE (notification_id);

ALTER TABLE ONLY public.wh_events
    ADD CONSTRAINT wh_events_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.wh_forward_cursor
    ADD CONSTRAINT wh_forward_cursor_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.wh_meta
    ADD CONSTRAINT wh_meta_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.wh_order
    ADD CONSTRAINT wh_order_event_id_key UNIQUE (event_id);

ALTER TABLE ONLY public.wh_order
    ADD CONSTRAINT wh_order_pkey PRIMARY KEY (seq);

ALTER TABLE ONLY public.wh_payments
    ADD CONSTRAINT wh_payments_pkey PRIMARY KEY (payment_id);

ALTER TABLE ONLY public.wh_pending
    ADD CONSTRAINT wh_pending_pkey PRIMARY KEY (event_id);

ALTER TABLE ONLY public.wh_quarantine
    ADD CONSTRAINT wh_quarantine_pkey PRIMARY KEY (id);

CREATE INDEX wh_delivery_dead ON public.wh_delivery USING btree (event_id) WHERE (state = 4);

CREATE INDEX wh_delivery_due ON public.wh_delivery USING btree (next_at) WHERE (state = 1);

CREATE INDEX wh_delivery_open ON public.wh_delivery USING btree (payment_id, seq) WHERE (state < 3);

CREATE INDEX wh_events_history ON public.wh_events USING btree (payment_id, event_instant, id);

CREATE INDEX wh_order_payment ON public.wh_order USING btree (payment_id, seq);

CREATE INDEX wh_order_status ON public.wh_order USING btree (status, seq);

CREATE INDEX wh_payments_status ON public.wh_payments USING btree (status, payment_id);

