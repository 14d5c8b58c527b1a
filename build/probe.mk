# wirehook probe (docs/probe.md).
# The probe's statistics (shared/probe/wh_probe_grade.c: sqrt) need libm
# in the programs that link them.
$(CLI): CURL_LIBS += -lm
$(UNIT): PKG_LIBS += -lm
