/* train.h — the skit-train program's entry point (train/cmd_train.c). */
#ifndef SKIT_TRAIN_TRAIN_H
#define SKIT_TRAIN_TRAIN_H

int cmd_train(int argc, char **argv);
/* What `skit train --resume DIR` does before its first step: read and
 * check the checkpoint, build its model and load it; a CLI status (the
 * fuzz harness's checkpoint target). */
int cmd_train_load_checkpoint(const char *dir);

#endif
