#ifndef WH_MOD_METRICS_H
#define WH_MOD_METRICS_H
/* `SetHandler wirehook-metrics`: every configuration's metrics in
 * Prometheus's text format (shared/metrics/), under httpd's own access
 * control. */
#include "wh_mod_config.h"

#define WH_MOD_METRICS "wirehook-metrics"

void wh_mod_metrics_register(void);

#endif
