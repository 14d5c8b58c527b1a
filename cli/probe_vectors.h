#ifndef WH_CLI_PROBE_VECTORS_H
#define WH_CLI_PROBE_VECTORS_H
/* probe/vectors.json as it was when wirehook was built, byte for byte
 * (probe_vectors.c), so an installed wirehook probe needs no data file;
 * `wirehook probe --list --format json` prints it. */
extern const char wh_probe_vectors_json[]; /* NUL-terminated */

#endif
