# tools/grad.mk — `skit grad-check`: backward passes against finite differences
tools_skit_SOURCES += tools/cmd_grad.c tools/gradcheck.c tools/gradcheck_f32.c tools/gradcheck.h
