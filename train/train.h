/* train.h — the skit-train program's entry point (train/cmd_train.c). */
#ifndef SKIT_TRAIN_TRAIN_H
#define SKIT_TRAIN_TRAIN_H

int cmd_train(int argc, char **argv);

#endif
