/* Pipelines by name with key=value parameters, as the CLI's run and chain take them. */
#ifndef LUMEN_CLI_STAGES_H
#define LUMEN_CLI_STAGES_H

#include <lumen/lumen.h>

enum { STAGE_MAX_PARAMS = 4 };

typedef struct {
    int pipeline;                     /* index into the table in stages.c */
    double values[STAGE_MAX_PARAMS];  /* by the pipeline's parameter order */
    int given[STAGE_MAX_PARAMS];
} stage;

/* Names of all pipelines, NULL-terminated, and a pipeline's parameter help ("sigma=2 ..."). */
extern const char *const stage_pipeline_names[];
const char *stage_params_help(int pipeline);
const char *stage_name(const stage *s);

/* Starts a stage for a pipeline name; -1 (message in err) if unknown. */
int stage_init(stage *s, const char *name, char *err, size_t err_size);
/* Sets "key=value"; -1 (message in err) for an unknown key, a key given twice, or a value that is
 * not a number in the parameter's range. */
int stage_param(stage *s, const char *kv, char *err, size_t err_size);
/* After the parameters: -1 (message in err) if they conflict or one is missing (resize). */
int stage_check(const stage *s, char *err, size_t err_size);
/* The channel count the stage makes of an input with `channels`; -1 with a hint in err if it
 * cannot take that input (sobel: gray only; grayscale: RGB or RGBA). */
int stage_channels(const stage *s, int channels, char *err, size_t err_size);
/* 1 if the stage takes 16-bit images (and makes 16-bit ones of them). */
int stage_takes_16bit(const stage *s);
/* Parses "name[:k=v[:k=v]]", parameters checked (stage_param, stage_check). */
int stage_parse(stage *s, const char *text, char *err, size_t err_size);
/* Runs the stage on src into a new image of the right size/channels (*out). On failure returns
 * the status; the message is in err. */
lumen_status stage_run(const stage *s, lumen_context *ctx, lumen_image *src, lumen_image **out,
                       char *err, size_t err_size);

#endif
