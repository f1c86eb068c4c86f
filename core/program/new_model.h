/* new_model.h — `mcf new-model NAME [--fermion] [--dir DIR]`: writes the skeleton of a model
 * plugin, NAME.c (ABI 2's mcf_model), CMakeLists.txt (out of tree, find_package(mcf)),
 * NAME.ini (a short run) and README.md, into DIR (default ./NAME) (new_model.c).  The
 * program's, not libmcf's.  The files come from core/program/templates/ (*.in), built into the
 * program as the arrays below (core/cmake/embed_templates.cmake); their placeholders:
 *     @NAME@     the plugin's name, "my-model"
 *     @PREFIX@   the C identifiers' prefix, "my_model" (my_model_chain, my_model_create)
 *     @PAD@      as many spaces as @PREFIX@ has characters (aligned continuation lines)
 *     @TAG@      the checkpoint record's tag as C characters, 'M', 'Y', 'M', '1'
 *     @TAGNAME@  the same tag as text, MYM1 */
#ifndef MCF_NEW_MODEL_H
#define MCF_NEW_MODEL_H

/* The command: argv after "new-model".  MCF_EINVAL (exit status 2) for usage, a name that
 * is not a plugin name, or a folder that exists and is not empty; MCF_EIO (1) for a file that
 * cannot be written. */
int mcfi_new_model_command(int argc, char **argv);

/* The templates: lines, newlines included, NULL after the last (build folder,
 * new_model_templates.c). */
extern const char *const mcfi_template_model_c[];
extern const char *const mcfi_template_fermion_model_c[];
extern const char *const mcfi_template_CMakeLists_txt[];
extern const char *const mcfi_template_model_ini[];
extern const char *const mcfi_template_fermion_model_ini[];
extern const char *const mcfi_template_README_md[];
extern const char *const mcfi_template_fermion_README_md[];

#endif
