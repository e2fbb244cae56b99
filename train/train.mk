# train/train.mk — skit-train (also `skit train`): a TNN-style language
# model in C on the public API only: model, data tasks, optimiser,
# checkpoints and its gradient check.
bin_PROGRAMS += train/skit-train
# (without main.c: the fuzz harness links these into its in-process skit)
SKIT_TRAIN_SOURCES = train/cmd_train.c train/train.h train/model.c train/model.h train/model_real.h \
	train/data.c train/data.h train/optim.c train/optim.h train/check.c train/check.h \
	train/checkpoint.c train/checkpoint.h train/plateau.c train/plateau.h
train_skit_train_SOURCES = train/main.c $(SKIT_TRAIN_SOURCES)
train_skit_train_LDADD = $(SKIT_PROGRAM_LDADD)
train_skit_train_LDFLAGS = $(SKIT_PROGRAM_LDFLAGS)
