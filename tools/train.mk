# tools/train.mk — `skit train`: the model (tools/train/) and its command
tools_skit_SOURCES += tools/cmd_train.c tools/train/model.c tools/train/model.h \
	tools/train/model_real.h tools/train/data.c \
	tools/train/data.h tools/train/optim.c tools/train/optim.h tools/train/check.c tools/train/check.h
