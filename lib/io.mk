# lib/io.mk — .npy and TSV reading/writing (atomic output files: lib/core/atomic.c)
libskit_la_SOURCES += lib/io/tsv_writer.c lib/io/npy.c lib/io/tsv_reader.c
skitinclude_HEADERS += lib/skit/io.h
