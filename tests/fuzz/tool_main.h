/* tool_main.h — force-included (-include) where tools/skit.c is compiled
 * with -Dmain=skit_tool_main into a fuzz harness: the renamed main() needs a
 * prototype under -Wmissing-prototypes. No other includes, so that a file's
 * own feature macros (_GNU_SOURCE) still come first. */
int skit_tool_main(int argc, char **argv);
