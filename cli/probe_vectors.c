/* The probe vectors built into wirehook: probe/vectors.json assembled in
 * as it is, with a NUL after its last byte (JSON text holds none). The path is the source
 * tree's, relative to where make runs; build/probe.mk makes this object
 * depend on the file. */
#include "probe_vectors.h"

__asm__(".section .rodata\n"
        ".global wh_probe_vectors_json\n"
        ".type wh_probe_vectors_json, @object\n"
        ".balign 16\n"
        "wh_probe_vectors_json:\n"
        ".incbin \"probe/vectors.json\"\n"
        ".byte 0\n"
        ".previous\n");
