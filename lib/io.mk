# lib/io.mk — .npy and TSV reading/writing, atomic output files
libskit_la_SOURCES += lib/io/atomic.c lib/io/tsv_writer.c lib/io/npy.c lib/io/tsv_reader.c
skitinclude_HEADERS += lib/skit/io.h
