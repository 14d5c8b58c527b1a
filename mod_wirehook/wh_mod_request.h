#ifndef WH_MOD_REQUEST_H
#define WH_MOD_REQUEST_H
/* Between httpd's request_rec and the core's plain data. */
#include "wh_mod_config.h"
#include "verify/wh_response.h"

void wh_mod_request_init(request_rec *r, const wh_config *cfg,
                         wh_request *req);
int wh_mod_respond(request_rec *r, const wh_response *resp);
int wh_mod_respond_error(request_rec *r, int status, const char *code,
                         const char *message);
void wh_mod_strip_client_headers(request_rec *r);
void wh_mod_publish_facts(request_rec *r, const wh_facts *facts);
void wh_mod_log_verdict(request_rec *r, const wh_verdict *v);
/* The core's sink: baton is the request_rec, or NULL for the server. */
void wh_mod_log_sink(void *baton, wh_log_level level, const char *msg);
extern const wh_logger wh_mod_server_logger;

#endif
