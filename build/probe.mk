# wirehook probe (docs/probe.md): the CLI carries probe/vectors.json
# inside (cli/probe_vectors.c assembles it in with .incbin), so its object
# is rebuilt when the file changes.
$(BUILD)/obj/cli/probe_vectors.o: probe/vectors.json
# The probe's statistics (shared/probe/wh_probe_grade.c: sqrt) need libm
# in the programs that link them.
$(CLI): CURL_LIBS += -lm
$(UNIT): PKG_LIBS += -lm
