/* scene.c — libconfig scene loader, validation and the resolved-parameter printer.
 *
 * Strictness is the point of this module: a typo in a scene must never silently fall back to a
 * default.  So every group is checked against its list of known keys, every value is read
 * through a typed getter that reports the key's full dotted path and the line it came from, and
 * the first problem ends the load with SIPD_EINPUT.
 *
 * Integers are NOT accepted where a float is expected (`dt = 1;`): libconfig types `1` as an
 * int, and silently converting would make `1` and `1.0` mean the same thing in some places but
 * not others (arrays of ints are a different type again).  We refuse it and say how to write
 * it ("write 1.0").  Likewise floats are refused where an integer is expected.
 *
 * scene_print() writes the resolved scene in libconfig syntax that scene_load() reads back to
 * identical values: floats as %.17g with a forced decimal point, paths made absolute so the
 * printed file can live anywhere.
 */
#define _POSIX_C_SOURCE 200809L
#include "scene.h"
#include "mesh.h"
#include "initpos.h"
#include "method.h"
#include "physics/mixed.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEYLEN 256
#define SCENE_MAX_BYTES ((size_t)4 << 20)
#define SCENE_MAX_BYTES_TEXT "4 MiB"
#define SCENE_MAX_LINE 65536
#define SCENE_MAX_DEPTH 10
/* |float| in a scene: far beyond any physical value, and well inside the float32 range of the
 * output, so that a finite input cannot overflow it on the first step */
#define SCENE_MAX_FLOAT 1e30

/* ---------------------------------------------------------------- the scene's method */
/* The method table (method.h) applied to the scene's solver group; scene.h says what each
 * answers.  They read a scene, so they are here and not in method.c, which stays below the
 * scene (docs/architecture.md: Layers). */

int method_sweep(const sipd_scene *sc)
{
    const sipd_method_info *mi = method_info(sc->method);
    if (!mi || mi->sweep == SIPD_SWEEP_SCENE)
        return sc->sweep;
    return mi->sweep;
}

const sipd_solver *method_solver(const sipd_scene *sc)
{
    const sipd_method_info *mi = method_info(sc->method);
    if (method_sweep(sc) == SIPD_SWEEP_GS)
        return &sipd_solver_gauss_seidel;
    return mi ? mi->solver : NULL;
}

int method_chebyshev(const sipd_scene *sc)
{
    const sipd_method_info *mi = method_info(sc->method);
    return sc->chebyshev && method_sweep(sc) == SIPD_SWEEP_JACOBI && mi && mi->chebyshev;
}

int method_cpu_only(const sipd_scene *sc, char *why, size_t n)
{
    const sipd_method_info *mi = method_info(sc->method);
    if (!mi || !(mi->backends & SIPD_BACKEND_CUDA)) {
        snprintf(why, n, "method %s", mi ? mi->name : "?");
        return 1;
    }
    /* Newton on CUDA: H and g come to the host, the pairs' matrix-free couplings do not */
    if (mi->direction == SIPD_DIRECTION_NEWTON_CG && scene_has_pairs(sc)) {
        snprintf(why, n, "method %s with contact pairs", mi->name);
        return 1;
    }
    /* the step filter of contact.ccd is not on the device yet (docs/contact.md#on-the-gpu) */
    if (sc->contact && sc->ccd) {
        snprintf(why, n, "contact.ccd (the step filter; contact.ccd = false runs the discrete detection on the GPU)");
        return 1;
    }
    /* the CUDA Gauss–Seidel sweep has no contact yet, whichever method sweeps so */
    if (sc->contact && method_sweep(sc) == SIPD_SWEEP_GS) {
        snprintf(why, n, "contact with a Gauss-Seidel sweep (sipd gauss-seidel, vbd)");
        return 1;
    }
    return 0;
}

int scene_has_pairs(const sipd_scene *sc) { return sc->contact && (sc->nbodies > 1 || sc->self_contact); }

int scene_coarse_on(const sipd_scene *sc)
{
    /* "auto" is off with Chebyshev: each correction restarts the recurrence, and the pair did
       worse than either alone on the study scenes (docs/two-level.md#the-default) */
    return sc->coarse_levels > 1 && sc->method == SIPD_METHOD_SIPD && sc->sweep == SIPD_SWEEP_JACOBI &&
           !(sc->coarse_auto && sc->chebyshev);
}

int method_auto_cpu(const sipd_scene *sc, char *why, size_t n)
{
    const sipd_method_info *mi = method_info(sc->method);
    if (mi && mi->direction == SIPD_DIRECTION_NEWTON_CG) {
        snprintf(why, n, "method %s (the float64 reference; --device cuda runs it in float32)", mi->name);
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- names */

const char *scene_method_name(sipd_method m)
{
    const sipd_method_info *mi = method_info(m);
    return mi ? mi->name : "?";
}


const char *scene_sweep_name(sipd_sweep s)
{
    switch (s) {
    case SIPD_SWEEP_JACOBI: return "jacobi";
    case SIPD_SWEEP_GS: return "gauss-seidel";
    }
    return "?";
}

const char *scene_line_search_name(sipd_line_search l)
{
    switch (l) {
    case SIPD_LS_AUTO: return "auto";
    case SIPD_LS_ALWAYS: return "always";
    case SIPD_LS_NEVER: return "never";
    }
    return "?";
}

const char *scene_projection_name(sipd_projection p)
{
    switch (p) {
    case SIPD_PROJ_EXPANDED: return "expanded";
    case SIPD_PROJ_SIGN: return "sign";
    case SIPD_PROJ_NONE: return "none";
    case SIPD_PROJ_CLAMP: return "clamp";
    case SIPD_PROJ_ABS: return "abs";
    }
    return "?";
}

const char *scene_device_name(sipd_device d)
{
    switch (d) {
    case SIPD_DEVICE_AUTO: return "auto";
    case SIPD_DEVICE_CUDA: return "cuda";
    case SIPD_DEVICE_CPU: return "cpu";
    }
    return "?";
}

/* Enum tables: value -1 marks a name that is planned but "not supported yet". */
typedef struct {
    const char *name;
    int value;
} enum_entry;

/* The material models (physics/material.h) by their scene names. */
static const enum_entry model_table[] = {{"stable-neohookean", SIPD_MAT_STABLE_NEOHOOKEAN}, {"neohookean", SIPD_MAT_NEOHOOKEAN}, {"arap", SIPD_MAT_ARAP}, {"corotational", SIPD_MAT_COROTATIONAL}, {"stvk", SIPD_MAT_STVK}, {NULL, 0}};

const char *scene_model_name(sipd_material_model m)
{
    const enum_entry *e;
    for (e = model_table; e->name; e++)
        if (e->value == (int)m)
            return e->name;
    return "?";
}

static const enum_entry elements_table[] = {{"auto", SIPD_ELEMENTS_AUTO}, {"solid", SIPD_ELEMENTS_SOLID},
                                            {"shell", SIPD_ELEMENTS_SHELL}, {"springs", SIPD_ELEMENTS_SPRINGS},
                                            {"rod", SIPD_ELEMENTS_ROD}, {NULL, 0}};
static const enum_entry bending_table[] = {
    {"auto", SIPD_BENDING_AUTO}, {"dihedral", SIPD_BENDING_DIHEDRAL}, {"midedge", SIPD_BENDING_MIDEDGE}, {NULL, 0}};
static const enum_entry gen_table[] = {{"rod", SIPD_GEN_ROD}, {"cloth", SIPD_GEN_CLOTH}, {NULL, 0}};
static const enum_entry sweep_table[] = {
    {"jacobi", SIPD_SWEEP_JACOBI}, {"gauss-seidel", SIPD_SWEEP_GS}, {NULL, 0}};
static const enum_entry ls_table[] = {
    {"auto", SIPD_LS_AUTO}, {"always", SIPD_LS_ALWAYS}, {"never", SIPD_LS_NEVER}, {NULL, 0}};
/* "analytic" is an alias of "expanded" (the analytic eigen-expansion of docs/design.md §3.4). */
static const enum_entry proj_table[] = {
    {"expanded", SIPD_PROJ_EXPANDED}, {"sign", SIPD_PROJ_SIGN}, {"none", SIPD_PROJ_NONE},
    {"analytic", SIPD_PROJ_EXPANDED}, {"clamp", SIPD_PROJ_CLAMP}, {"abs", SIPD_PROJ_ABS}, {NULL, 0}};
static const enum_entry linear_table[] = {{"pcg", SIPD_LINEAR_PCG}, {"cholmod", SIPD_LINEAR_CHOLMOD}, {NULL, 0}};
static const enum_entry device_table[] = {
    {"auto", SIPD_DEVICE_AUTO}, {"cuda", SIPD_DEVICE_CUDA}, {"cpu", SIPD_DEVICE_CPU}, {NULL, 0}};
static const enum_entry precision_table[] = {{"auto", SIPD_PRECISION_AUTO},
                                             {"float32", SIPD_PRECISION_FLOAT32},
                                             {"float64", SIPD_PRECISION_FLOAT64},
                                             {NULL, 0}};

const char *scene_precision_name(sipd_precision p)
{
    const enum_entry *e;
    for (e = precision_table; e->name; e++)
        if (e->value == (int)p)
            return e->name;
    return "?";
}

/* Known keys of every group; NULL-terminated. */
static const char *const root_keys[] = {"time", "solver", "device", "precision", "gravity", "materials",
                                        "bodies", "contact", "output", NULL};
static const char *const time_keys[] = {"dt", "substeps", "frames", "quasistatic", NULL};
static const char *const solver_keys[] = {"method", "sweep", "iterations", "tolerance",
                                          "line_search", "projection", "chebyshev",
                                          "chebyshev_rho", "omega", "strict", "linear", "initial_guess",
                                          "cg_tolerance", "coarse", NULL};
/* solver.coarse (two-level SIPD, src/coarse.h; docs/two-level.md):
 *   levels  1 (default: off) or 2 (a coarse correction on a trilinear grid);
 *   every   iterations between coarse corrections, the first at iteration 1 (default 10, >= 1);
 *   size    grid cells along the longest edge of the initial bounding box (default 8, 1..1024);
 *   refresh corrections that share one coarse operator (Hessian assembly, Pᵀ H P, Cholesky):
 *           1 = a new one for every correction; 0 = one per time step, at its first correction
 *           (default 0, >= 0);
 *   basis   "auto" (default: quadratic B-splines for shells, rods and springs, trilinear for
 *           solids), "trilinear" or "quadratic" (every body; coarse.h coarse_build).
 * Only for method "sipd" with the Jacobi sweep on the CPU backend, without contact pairs. */
static const char *const coarse_keys[] = {"levels", "every", "size", "refresh", "basis", NULL};
static const enum_entry guess_table[] = {
    {"adaptive", SIPD_GUESS_ADAPTIVE}, {"inertial", SIPD_GUESS_INERTIAL}, {NULL, 0}};
static const enum_entry coarse_basis_table[] = {{"auto", SIPD_COARSE_BASIS_AUTO},
                                                {"trilinear", SIPD_COARSE_BASIS_TRILINEAR},
                                                {"quadratic", SIPD_COARSE_BASIS_QUADRATIC},
                                                {NULL, 0}};

/* The name of value v in an enum table (its first entry with that value; "?" when none). */
static const char *table_name(const enum_entry *t, int v)
{
    for (; t->name; t++)
        if (t->value == v)
            return t->name;
    return "?";
}

const char *scene_initial_guess_name(int g) { return table_name(guess_table, g); }
const char *scene_coarse_basis_name(int b) { return table_name(coarse_basis_table, b); }
static const char *const material_keys[] = {"name", "model", "youngs", "poisson", "density",
                                            NULL};
static const char *const body_keys[] = {"mesh", "material", "translate", "rotate_deg", "scale",
                                        "velocity", "initial_stretch", "pin", "move", "obstacle",
                                        "angular_velocity", "center", "initial_positions", "elements",
                                        "radius", "spring_stiffness", "generate", "thickness",
                                        "bending_stiffness", "bending", NULL};
static const char *const generate_keys[] = {"shape", "length", "segments", "size", "cells", NULL};
static const char *const pin_keys[] = {"box_min", "box_max", NULL};
static const char *const move_keys[] = {"box_min", "box_max", "velocity", "angular_velocity",
                                        "center", NULL};
static const char *const contact_keys[] = {"enabled", "dhat", "stiffness", "friction", "self",
                                           "detect_every", "ground", "friction_velocity", "thickness", "ccd",
                                           NULL};
static const char *const ground_keys[] = {"height", "normal", NULL};
static const char *const output_keys[] = {"file", "every", "compression", "xdmf", "checkpoint_every",
                                          "checkpoint_seconds", "fields", "history", NULL};
/* Every group's table by its dotted path ("[]" for a list element).  check_keys() refuses a
 * table that is not listed here, so scene_print_keys() names every key the parser accepts: the
 * docs test (tests/cli/docs.cmake) checks that docs/scene-reference.md documents each of them. */
static const struct {
    const char *path;
    const char *const *keys;
} key_tables[] = {{"", root_keys},
                  {"time", time_keys},
                  {"solver", solver_keys},
                  {"solver.coarse", coarse_keys},
                  {"materials[]", material_keys},
                  {"bodies[]", body_keys},
                  {"bodies[].generate", generate_keys},
                  {"bodies[].pin", pin_keys},
                  {"bodies[].move", move_keys},
                  {"contact", contact_keys},
                  {"contact.ground", ground_keys},
                  {"output", output_keys}};

void scene_print_keys(FILE *f)
{
    for (size_t t = 0; t < sizeof key_tables / sizeof key_tables[0]; t++)
        for (const char *const *k = key_tables[t].keys; *k; k++)
            fprintf(f, "%s%s%s\n", key_tables[t].path, key_tables[t].path[0] ? "." : "", *k);
}

static const char *const field_names[SIPD_FIELD_COUNT] = {"displacement", "velocity", "contact_force", "J",
                                                          "von_mises", "energy_density", "strain"};

const char *scene_field_name(int f)
{
    return f >= 0 && f < SIPD_FIELD_COUNT ? field_names[f] : NULL;
}

static char *xstrdup(const char *s);

/* ---------------------------------------------------------------- scene text, before libconfig
 * libconfig 1.5 is not fit for hostile input on its own: it keeps integer literals in 32 bits
 * (`frames = 4294967298;` reads as 2), its scanner is quadratic in the length of a line, an
 * `@include` of "" or of a directory makes it call exit(2), and an absolute @include path is
 * joined to the include directory.  So the text is checked and the includes are expanded here,
 * into one buffer that config_read_string parses, with a map from its lines back to each file
 * and line (errors name the file the user wrote).  Limits: SCENE_MAX_BYTES for a scene and its
 * includes together, SCENE_MAX_LINE per line, SCENE_MAX_DEPTH nested includes; a relative
 * include is resolved against the scene file's directory (like meshes), an absolute one is
 * used as is; it must name a readable regular file. */

typedef struct {
    int first;          /* first line of the expanded text that comes from this piece */
    int file;           /* index into files                                            */
    int line0;          /* its line in that file                                       */
} text_piece;

/* The scanner's view of the scene's structure, kept as it reads (it is no parser: libconfig
 * parses the text afterwards).  It knows which setting a value belongs to, as a dotted key
 * ("bodies[0].pin.box_min"), so that two of libconfig's errors can name their key:
 *  - an array whose elements differ in type ([0.0, -9, 0.0]): libconfig says only "mismatched
 *    element type in array"; the scanner refuses it first, naming the key and the element;
 *  - any other parse error (syntax error, duplicate setting name): libconfig gives a line;
 *    scene_text_keys() scans the text again and names the settings that start on that line
 *    (or, with none, the setting that is open there). */
#define SCAN_DEPTH 32
enum { SCAN_INT = 1, SCAN_FLOAT, SCAN_STRING, SCAN_BOOL };

typedef struct {
    char label[KEYLEN];   /* a setting's name, or "[i]" for element i of a list or array */
    char open;            /* '{', '(' or '['                                              */
    int index;            /* list, array: the element being read (commas so far)          */
    int elem_type;        /* array: the type of its first element (0: none yet)           */
    int elem_index;       /* array: the index of that element                             */
    char elem_text[48];   /* array: that element's text                                   */
} scan_level;

typedef struct {
    int in_comment, in_string;
    char name[KEYLEN];    /* the last name seen (for messages)                            */
    char pending[KEYLEN]; /* the setting whose value comes next ("": none)                */
    scan_level lev[SCAN_DEPTH];
    int depth;            /* open groups, lists and arrays (past SCAN_DEPTH only counted) */
    int silent;           /* a second pass: report nothing                                */
    int qline;            /* scene_text_keys: the line asked about, its keys              */
    char qkeys[600];
    char qopen[KEYLEN];
} scan_state;

typedef struct {
    char *buf;
    size_t len, cap;
    int lines;          /* complete lines in buf                                       */
    text_piece *pieces;
    int npieces, piece_cap;
    char **files;
    int nfiles;
    size_t bytes;       /* bytes read, all files                                       */
    scan_state scan;    /* scanner state, carried across lines and files               */
    char *top;          /* the scene file's own text, as read                           */
} scene_text;

static const scene_text *cur_text; /* the map of the scene being loaded (for setting_line) */

static void text_free(scene_text *t)
{
    for (int i = 0; i < t->nfiles; i++)
        free(t->files[i]);
    free(t->files);
    free(t->pieces);
    free(t->buf);
    free(t->top);
    memset(t, 0, sizeof *t);
}

static int text_append(scene_text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t nc = t->cap ? t->cap : 65536;
        char *nb;
        while (nc < t->len + n + 1)
            nc *= 2;
        nb = realloc(t->buf, nc);
        if (!nb) {
            sipd_error("out of memory reading the scene");
            return SIPD_EFAIL;
        }
        t->buf = nb;
        t->cap = nc;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
    return SIPD_OK;
}

static int text_piece_start(scene_text *t, int file, int line0)
{
    if (t->npieces == t->piece_cap) {
        int nc = t->piece_cap ? 2 * t->piece_cap : 16;
        text_piece *np = realloc(t->pieces, (size_t)nc * sizeof *np);
        if (!np) {
            sipd_error("out of memory reading the scene");
            return SIPD_EFAIL;
        }
        t->pieces = np;
        t->piece_cap = nc;
    }
    t->pieces[t->npieces].first = t->lines + 1;
    t->pieces[t->npieces].file = file;
    t->pieces[t->npieces].line0 = line0;
    t->npieces++;
    return SIPD_OK;
}

/* File and line of line `line` of the expanded text (NULL when there is no map). */
static const char *text_locate(const scene_text *t, int line, int *file_line)
{
    const text_piece *p = NULL;
    if (!t || line <= 0)
        return NULL;
    for (int i = 0; i < t->npieces && t->pieces[i].first <= line; i++)
        p = &t->pieces[i];
    if (!p)
        return NULL;
    *file_line = p->line0 + (line - p->first);
    return t->files[p->file];
}

static int is_name_start(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '*';
}

static int is_name_char(int c)
{
    return is_name_start(c) || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* The dotted key of the open containers, then `leaf` (NULL or "": none), into out[KEYLEN]. */
static void scan_path(const scan_state *s, const char *leaf, char *out)
{
    int d, n = s->depth < SCAN_DEPTH ? s->depth : SCAN_DEPTH;
    size_t len = 0;
    for (d = 0; d <= n; d++) {
        const char *l = d < n ? s->lev[d].label : leaf;
        if (!l || !l[0])
            continue;
        if (len && l[0] != '[' && len + 1 < KEYLEN)
            out[len++] = '.';
        for (; *l && len + 1 < KEYLEN; l++)   /* (a key this deep is unreadable anyway: truncation is fine) */
            out[len++] = *l;
    }
    out[len] = '\0';
}

/* A setting `name` starts on `line`: it is the pending one; on the line asked about, note its
 * key (a key that extends the one noted last replaces it: "time", "time.dt" -> "time.dt"). */
static void scan_setting(scan_state *s, int line, const char *name)
{
    snprintf(s->pending, sizeof s->pending, "%s", name);
    if (s->qline > 0 && line == s->qline) {
        char key[KEYLEN], *last = strrchr(s->qkeys, '\n');
        size_t ll;
        scan_path(s, name, key);
        last = last ? last + 1 : s->qkeys;
        ll = strlen(last);
        if (ll && strncmp(key, last, ll) == 0 && (key[ll] == '.' || key[ll] == '['))
            *last = '\0';
        else if (s->qkeys[0] && strlen(s->qkeys) + 1 < sizeof s->qkeys)
            strcat(s->qkeys, "\n");
        strncat(s->qkeys, key, sizeof s->qkeys - strlen(s->qkeys) - 1);
    }
}

static const char *scan_type_name(int type)
{
    return type == SCAN_INT ? "an integer" : type == SCAN_FLOAT ? "a float" : type == SCAN_STRING ? "a string" : "a boolean";
}

/* A scalar value (its text tok): in an array, its type must be that of the first element. */
static int scan_value(scan_state *s, const char *file, int line, int type, const char *tok, size_t n)
{
    scan_level *a = s->depth > 0 && s->depth <= SCAN_DEPTH ? &s->lev[s->depth - 1] : NULL;
    s->pending[0] = '\0';
    if (!a || a->open != '[')
        return SIPD_OK;
    if (!a->elem_type) {
        a->elem_type = type;
        a->elem_index = a->index;
        snprintf(a->elem_text, sizeof a->elem_text, "%.*s", (int)(n < 40 ? n : 40), tok);
        return SIPD_OK;
    }
    if (a->elem_type == type || s->silent)
        return SIPD_OK;
    {
        char key[KEYLEN], fix[96] = "";
        const char *itok = type == SCAN_INT ? tok : a->elem_type == SCAN_INT ? a->elem_text : NULL;
        size_t in = type == SCAN_INT ? n : itok ? strlen(itok) : 0;
        int both_numbers = (type == SCAN_INT || type == SCAN_FLOAT) &&
                           (a->elem_type == SCAN_INT || a->elem_type == SCAN_FLOAT);
        if (both_numbers && itok && in < 40 && !memchr(itok, 'x', in) && !memchr(itok, 'X', in) && itok[in - 1] != 'L')
            snprintf(fix, sizeof fix, " (write %.*s.0)", (int)in, itok);
        s->depth--;   /* the key is the array's own */
        scan_path(s, a->label, key);
        s->depth++;
        sipd_error_at(file, line, "%s: element %d (%.*s) is %s but element %d (%s) is %s: the elements of an "
                      "array [ ... ] share one type%s", key, a->index, (int)(n < 40 ? n : 40), tok, scan_type_name(type),
                      a->elem_index, a->elem_text, scan_type_name(a->elem_type),
                      both_numbers ? (fix[0] ? fix : " (write every number with a decimal point)") : "");
        return SIPD_EINPUT;
    }
}

/* One number token of libconfig's grammar; integers without the L suffix must fit in 32 bits. */
static int text_number(scan_state *t, const char *file, int line, const char *s, size_t n)
{
    char tok[96];
    int hex, i0 = (s[0] == '-' || s[0] == '+');
    if (n >= sizeof tok)
        n = sizeof tok - 1;
    memcpy(tok, s, n);
    tok[n] = '\0';
    hex = tok[i0] == '0' && (tok[i0 + 1] == 'x' || tok[i0 + 1] == 'X');
    if (!hex && strpbrk(tok, ".eE"))
        return scan_value(t, file, line, SCAN_FLOAT, s, n);
    if (n > 0 && tok[n - 1] == 'L')
        return scan_value(t, file, line, SCAN_INT, s, n); /* a 64-bit literal: range-checked where it is used */
    errno = 0;
    char *end;
    long long v = strtoll(tok, &end, hex ? 16 : 10);
    if (*end != '\0')
        return SIPD_OK; /* not a number libconfig accepts: its parser reports it */
    if ((errno == ERANGE || v > INT_MAX || v < INT_MIN || (hex && v < 0)) && !t->silent) {
        char key[KEYLEN];
        scan_path(t, t->pending, key);
        sipd_error_at(file, line, "%s: integer %s is out of range (integers are at most %d; libconfig "
                      "keeps them in 32 bits and would silently wrap this one)",
                      key[0] ? key : t->name[0] ? t->name : "value", tok, INT_MAX);
        return SIPD_EINPUT;
    }
    return scan_value(t, file, line, SCAN_INT, s, n);
}

/* Scan one line (without its newline) for comments, strings, names, numbers and the brackets
 * and separators that give the scene its structure (scan_state). */
static int text_scan_line(scan_state *t, const char *file, int line, const char *s, size_t n)
{
    size_t i = 0;
    int rc;
    if (t->qline > 0 && line == t->qline)
        scan_path(t, t->pending, t->qopen);
    while (i < n) {
        char c = s[i];
        if (t->in_comment) {
            if (c == '*' && i + 1 < n && s[i + 1] == '/') {
                t->in_comment = 0;
                i += 2;
            } else {
                i++;
            }
        } else if (t->in_string) {
            if (c == '\\')
                i += 2;
            else {
                if (c == '"')
                    t->in_string = 0;
                i++;
            }
        } else if (c == '#' || (c == '/' && i + 1 < n && s[i + 1] == '/')) {
            return SIPD_OK;
        } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            t->in_comment = 1;
            i += 2;
        } else if (c == '"') {
            size_t j = i + 1;   /* (the string's text on this line, for a message) */
            while (j < n && s[j] != '"')
                j += s[j] == '\\' ? 2 : 1;
            t->in_string = 1;
            if ((rc = scan_value(t, file, line, SCAN_STRING, s + i, (j < n ? j + 1 : n) - i)))
                return rc;
            i++;
        } else if (is_name_start((unsigned char)c)) {
            size_t j = i, k;
            while (j < n && is_name_char((unsigned char)s[j]))
                j++;
            if (j - i < sizeof t->name) {
                memcpy(t->name, s + i, j - i);
                t->name[j - i] = '\0';
            }
            for (k = j; k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'); k++)
                ;
            if (k < n && (s[k] == '=' || s[k] == ':'))
                scan_setting(t, line, j - i < sizeof t->name ? t->name : "?");
            else if ((j - i == 4 && strncasecmp(s + i, "true", 4) == 0) || (j - i == 5 && strncasecmp(s + i, "false", 5) == 0))
                if ((rc = scan_value(t, file, line, SCAN_BOOL, s + i, j - i)))
                    return rc;
            i = j;
        } else if ((c >= '0' && c <= '9') || c == '.' ||
                   ((c == '-' || c == '+') && i + 1 < n && ((s[i + 1] >= '0' && s[i + 1] <= '9') || s[i + 1] == '.'))) {
            size_t j = i + 1;
            while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '.' ||
                             ((s[j] == '-' || s[j] == '+') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
                j++;
            if ((rc = text_number(t, file, line, s + i, j - i)))
                return rc;
            i = j;
        } else if (c == '{' || c == '(' || c == '[') {
            if (t->depth < SCAN_DEPTH) {
                scan_level *l = &t->lev[t->depth];
                const scan_level *up = t->depth > 0 ? &t->lev[t->depth - 1] : NULL;
                if (t->pending[0])
                    snprintf(l->label, sizeof l->label, "%s", t->pending);
                else if (up && up->open != '{')
                    snprintf(l->label, sizeof l->label, "[%d]", up->index);
                else
                    strcpy(l->label, "?");
                l->open = c;
                l->index = 0;
                l->elem_type = 0;
            }
            t->depth++;
            t->pending[0] = '\0';
            i++;
        } else if (c == '}' || c == ')' || c == ']') {
            if (t->depth > 0)
                t->depth--;
            t->pending[0] = '\0';
            i++;
        } else if (c == ',') {
            if (t->depth > 0 && t->depth <= SCAN_DEPTH && t->lev[t->depth - 1].open != '{')
                t->lev[t->depth - 1].index++;
            t->pending[0] = '\0';
            i++;
        } else {
            if (c == ';')
                t->pending[0] = '\0';
            i++;
        }
    }
    return SIPD_OK;
}

/* The keys of the settings that start on line `line` of the expanded text, joined by " or "
 * (with none, the setting open there; "" when there is none either). */
static void scene_text_keys(const scene_text *t, int line, char *out, size_t n)
{
    scan_state *q = sipd_calloc(1, sizeof *q);
    const char *p = t->buf ? t->buf : "";
    int l;
    out[0] = '\0';
    if (!q)
        return;
    q->silent = 1;
    q->qline = line;
    for (l = 1; l <= line && *p; l++) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        text_scan_line(q, NULL, l, p, len);
        p += len + (e != NULL);
    }
    if (q->qkeys[0]) {
        char *k, *save = NULL;
        for (k = strtok_r(q->qkeys, "\n", &save); k; k = strtok_r(NULL, "\n", &save)) {
            if (out[0])
                strncat(out, " or ", n - strlen(out) - 1);
            strncat(out, k, n - strlen(out) - 1);
        }
    } else {
        snprintf(out, n, "%s", q->qopen);
    }
    free(q);
}

static int text_add_file(scene_text *t, const char *path, const char *dir, const char *from, int from_line,
                         int depth);

/* `@include "path"` at the start of a line (outside comments and strings): *path_out is the
 * malloc'ed name, or NULL when the line is no include.  A malformed include is an error. */
static int text_include_line(const char *file, int line, const char *s, size_t n, char **path_out)
{
    size_t i = 0, j;
    *path_out = NULL;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (n - i < 8 || memcmp(s + i, "@include", 8) != 0)
        return SIPD_OK;
    i += 8;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i >= n || s[i] != '"') {
        sipd_error_at(file, line, "@include: expected a quoted file name: @include \"file.cfg\"");
        return SIPD_EINPUT;
    }
    for (j = ++i; j < n && s[j] != '"'; j++)
        if (s[j] == '\\') {
            sipd_error_at(file, line, "@include: backslashes are not allowed in the file name");
            return SIPD_EINPUT;
        }
    if (j >= n) {
        sipd_error_at(file, line, "@include: the file name has no closing quote");
        return SIPD_EINPUT;
    }
    if (j == i) {
        sipd_error_at(file, line, "@include: empty file name");
        return SIPD_EINPUT;
    }
    {
        size_t k = j + 1;
        while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
            k++;
        if (k < n && s[k] != '#' && !(s[k] == '/' && k + 1 < n && (s[k + 1] == '/' || s[k + 1] == '*'))) {
            sipd_error_at(file, line, "@include: nothing but a comment may follow the file name");
            return SIPD_EINPUT;
        }
    }
    *path_out = sipd_malloc(j - i + 1);
    if (!*path_out)
        return SIPD_EFAIL;
    memcpy(*path_out, s + i, j - i);
    (*path_out)[j - i] = '\0';
    return SIPD_OK;
}

/* Read `path` (checked: a regular file, within the size budget) and append it, expanded. */
static int text_add_file(scene_text *t, const char *path, const char *dir, const char *from, int from_line,
                         int depth)
{
    struct stat st;
    char *data = NULL, **nf;
    const char *why = NULL;
    size_t n = 0, pos = 0;
    int fi, line = 0, rc = SIPD_OK;
    FILE *f;

    errno = 0;
    if (stat(path, &st) != 0)
        why = errno == ENOENT ? "not found" : strerror(errno);
    else if (S_ISDIR(st.st_mode))
        why = "is a directory";
    else if (!S_ISREG(st.st_mode))
        why = "is not a regular file";
    else if ((size_t)st.st_size > SCENE_MAX_BYTES - t->bytes)
        why = "too large (a scene and its includes may hold at most " SCENE_MAX_BYTES_TEXT ")";
    if (why) {
        if (from)
            sipd_error_at(from, from_line, "@include \"%s\": %s", path, why);
        else
            sipd_error_at(path, 0, "cannot read scene file: %s", why);
        return SIPD_EINPUT;
    }
    f = fopen(path, "rb");
    if (f) {
        data = sipd_malloc((size_t)st.st_size + 1);
        if (data)
            n = fread(data, 1, (size_t)st.st_size, f);
        if (data && (ferror(f) || fgetc(f) != EOF)) /* grew while we read it: refuse */
            n = (size_t)-1;
        fclose(f);
    }
    if (!f || !data || n == (size_t)-1) {
        int e = errno;
        free(data);
        if (from)
            sipd_error_at(from, from_line, "@include \"%s\": cannot read: %s", path, f ? "read error" : strerror(e));
        else
            sipd_error_at(path, 0, "cannot read scene file: %s", f ? "read error" : strerror(e));
        return SIPD_EINPUT;
    }
    data[n] = '\0';
    t->bytes += n;
    if (memchr(data, '\0', n)) {
        const char *z = memchr(data, '\0', n);
        int l = 1;
        for (const char *p = data; p < z; p++)
            l += *p == '\n';
        sipd_error_at(path, l, "NUL byte in a scene file (a binary file?)");
        free(data);
        return SIPD_EINPUT;
    }
    nf = realloc(t->files, (size_t)(t->nfiles + 1) * sizeof *nf);
    if (!nf || !(nf[t->nfiles] = xstrdup(path))) {
        if (nf)
            t->files = nf;
        free(data);
        return SIPD_EFAIL;
    }
    t->files = nf;
    fi = t->nfiles++;
    if ((rc = text_piece_start(t, fi, 1))) {
        free(data);
        return rc;
    }
    while (pos < n && rc == SIPD_OK) {
        const char *s = data + pos, *e = memchr(s, '\n', n - pos);
        size_t len = e ? (size_t)(e - s) : n - pos;
        char *inc = NULL;
        line++;
        pos += len + (e != NULL);
        if (len > SCENE_MAX_LINE) {
            sipd_error_at(path, line, "line too long (%zu bytes; at most %d per line)", len, SCENE_MAX_LINE);
            rc = SIPD_EINPUT;
            break;
        }
        if (!t->scan.in_comment && !t->scan.in_string && (rc = text_include_line(path, line, s, len, &inc)))
            break;
        if (inc) {
            char *ip = sipd_path_join(dir, inc);
            if (!ip) {
                rc = SIPD_EFAIL;
            } else if (depth >= SCENE_MAX_DEPTH) {
                sipd_error_at(path, line, "@include \"%s\": includes nested deeper than %d (a cycle?)", inc,
                              SCENE_MAX_DEPTH);
                rc = SIPD_EINPUT;
            } else {
                rc = text_add_file(t, ip, dir, path, line, depth + 1);
                if (rc == SIPD_OK)
                    rc = text_piece_start(t, fi, line + 1);
            }
            free(ip);
            free(inc);
            continue;
        }
        if ((rc = text_scan_line(&t->scan, path, line, s, len)) || (rc = text_append(t, s, len)) ||
            (rc = text_append(t, "\n", 1)))
            break;
        t->lines++;
    }
    if (!from && rc == SIPD_OK)
        t->top = data;
    else
        free(data);
    return rc;
}

/* ---------------------------------------------------------------- error reporting */

/* Line for an error at setting s: its own line, else the nearest ancestor's, else the last line
 * of the scene (for keys that are missing from the top level). */
static int setting_line(const sipd_scene *sc, const config_setting_t *s)
{
    for (; s; s = config_setting_parent(s))
        if (config_setting_source_line(s) > 0) {
            int line = config_setting_source_line(s);
            text_locate(cur_text, line, &line);
            return line;
        }
    int n = 1;
    if (sc->text) {
        const char *p = sc->text;
        for (; *p; p++)
            if (*p == '\n' && p[1])
                n++;
    }
    return n;
}

static const char *setting_file(const sipd_scene *sc, const config_setting_t *s)
{
    for (; s; s = config_setting_parent(s))
        if (config_setting_source_line(s) > 0) {
            int line;
            const char *f = text_locate(cur_text, config_setting_source_line(s), &line);
            if (f)
                return f;
            break;
        }
    return sc->path;
}

/* The file of setting s as one of sc->inputs (which live as long as the scene). */
static const char *setting_input(const sipd_scene *sc, const config_setting_t *s)
{
    const char *f = setting_file(sc, s);
    for (int i = 0; f && i < sc->ninputs; i++)
        if (strcmp(sc->inputs[i], f) == 0)
            return sc->inputs[i];
    return sc->path;
}

/* "file:line: key: message"; returns SIPD_EINPUT so callers can `return err(...)`. */
static int err(const sipd_scene *sc, const config_setting_t *s, const char *key,
               const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int err(const sipd_scene *sc, const config_setting_t *s, const char *key,
               const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sipd_error_at(setting_file(sc, s), setting_line(sc, s), "%s: %s", key, msg);
    return SIPD_EINPUT;
}

static const char *type_name(int t)
{
    switch (t) {
    case CONFIG_TYPE_GROUP: return "a group { ... }";
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64: return "an integer";
    case CONFIG_TYPE_FLOAT: return "a float";
    case CONFIG_TYPE_STRING: return "a string";
    case CONFIG_TYPE_BOOL: return "a boolean";
    case CONFIG_TYPE_ARRAY: return "an array [ ... ]";
    case CONFIG_TYPE_LIST: return "a list ( ... )";
    }
    return "an unknown type";
}

static void key_join(char *out, const char *parent, const char *name)
{
    int n;
    if (parent && parent[0])
        n = snprintf(out, KEYLEN, "%s.%s", parent, name);
    else
        n = snprintf(out, KEYLEN, "%s", name);
    if (n >= KEYLEN) /* a key this deep is already unreadable: truncation is fine */
        out[KEYLEN - 1] = '\0';
}

static void key_index(char *out, const char *parent, int i)
{
    if (snprintf(out, KEYLEN, "%s[%d]", parent, i) >= KEYLEN)
        out[KEYLEN - 1] = '\0';
}

/* Every member of group g must be one of `known`. */
static int check_keys(const sipd_scene *sc, const config_setting_t *g, const char *gpath,
                      const char *const *known)
{
    int n = config_setting_length(g), listed = 0;
    for (size_t t = 0; t < sizeof key_tables / sizeof key_tables[0]; t++)
        listed |= key_tables[t].keys == known;
    if (!listed) {   /* a new group's table must be in key_tables (the docs test lists them) */
        sipd_error("internal error: the known keys of '%s' are not in scene.c's key_tables", gpath);
        return SIPD_EFAIL;
    }
    for (int i = 0; i < n; i++) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(s);
        int ok = 0;
        for (const char *const *k = known; *k; k++)
            if (name && strcmp(name, *k) == 0)
                ok = 1;
        if (!ok) {
            char key[KEYLEN], list[512] = "";
            key_join(key, gpath, name ? name : "?");
            for (const char *const *k = known; *k; k++) {
                if (k != known)
                    strncat(list, ", ", sizeof list - strlen(list) - 1);
                strncat(list, *k, sizeof list - strlen(list) - 1);
            }
            sipd_error_at(setting_file(sc, s), setting_line(sc, s),
                          "unknown key '%s' (known keys%s%s: %s)", key, gpath[0] ? " in " : "",
                          gpath, list);
            return SIPD_EINPUT;
        }
    }
    return SIPD_OK;
}

/* ---------------------------------------------------------------- typed getters
 * Each getter looks up `name` in group g (path gpath).  Absent: returns SIPD_OK leaving *out
 * untouched (the default), or an error when required.  Present: type-checked, stored. */

static int missing(const sipd_scene *sc, const config_setting_t *g, const char *key,
                   const char *what)
{
    return err(sc, g, key, "required key missing (%s)", what);
}

static int get_float(const sipd_scene *sc, const config_setting_t *g, const char *gpath,
                     const char *name, int required, double *out)
{
    char key[KEYLEN];
    const config_setting_t *s = g ? config_setting_get_member(g, name) : NULL;
    key_join(key, gpath, name);
    if (!s)
        return required ? missing(sc, g, key, "a float") : SIPD_OK;
    int t = config_setting_type(s);
    if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64)
        return err(sc, s, key, "expected a float (write %lld.0), got an integer",
                   (long long)config_setting_get_int64(s));
    if (t != CONFIG_TYPE_FLOAT)
        return err(sc, s, key, "expected a float, got %s", type_name(t));
    double v = config_setting_get_float(s);
    if (!isfinite(v))
        return err(sc, s, key, "expected a finite float, got %g", v);
    if (fabs(v) > SCENE_MAX_FLOAT)
        return err(sc, s, key, "out of range: |value| must be at most %g, got %g", SCENE_MAX_FLOAT, v);
    *out = v;
    return SIPD_OK;
}

/* Range description: lo/hi may be +-INFINITY; *_incl says whether the bound is allowed. */
static int float_range(const sipd_scene *sc, const config_setting_t *g, const char *gpath,
                       const char *name, int required, double *out, double lo, int lo_incl,
                       double hi, int hi_incl)
{
    double v = *out;
    int rc = get_float(sc, g, gpath, name, required, &v);
    if (rc || !g || !config_setting_get_member(g, name))
        return rc; /* absent: the default stands */
    int bad = (lo_incl ? v < lo : v <= lo) || (hi_incl ? v > hi : v >= hi);
    if (bad) {
        char key[KEYLEN];
        key_join(key, gpath, name);
        const config_setting_t *s = config_setting_get_member(g, name);
        if (isinf(hi))
            return err(sc, s, key, "must be %s %g, got %.17g", lo_incl ? ">=" : ">", lo, v);
        if (isinf(lo))
            return err(sc, s, key, "must be %s %g, got %.17g", hi_incl ? "<=" : "<", hi, v);
        return err(sc, s, key, "must be in %c%g, %g%c, got %.17g", lo_incl ? '[' : '(', lo, hi,
                   hi_incl ? ']' : ')', v);
    }
    *out = v;
    return SIPD_OK;
}

/* Integer in [lo, hi]. */
static int int_range(const sipd_scene *sc, const config_setting_t *g, const char *gpath,
                     const char *name, int required, int *out, long long lo, long long hi)
{
    char key[KEYLEN];
    const config_setting_t *s = g ? config_setting_get_member(g, name) : NULL;
    key_join(key, gpath, name);
    if (!s)
        return required ? missing(sc, g, key, "an integer") : SIPD_OK;
    int t = config_setting_type(s);
    if (t == CONFIG_TYPE_FLOAT)
        return err(sc, s, key, "expected an integer (no decimal point), got a float");
    if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
        return err(sc, s, key, "expected an integer, got %s", type_name(t));
    long long v = config_setting_get_int64(s);
    if (v < lo || v > hi) {
        if (hi >= INT_MAX && v < lo)
            return err(sc, s, key, "must be >= %lld, got %lld", lo, v);
        return err(sc, s, key, "must be in [%lld, %lld], got %lld", lo, hi, v);
    }
    *out = (int)v;
    return SIPD_OK;
}

static int get_bool(const sipd_scene *sc, const config_setting_t *g, const char *gpath,
                    const char *name, int *out)
{
    char key[KEYLEN];
    const config_setting_t *s = g ? config_setting_get_member(g, name) : NULL;
    key_join(key, gpath, name);
    if (!s)
        return SIPD_OK;
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_BOOL)
        return err(sc, s, key, "expected a boolean (true or false), got %s", type_name(t));
    *out = config_setting_get_bool(s) ? 1 : 0;
    return SIPD_OK;
}

/* *out points into the config (valid until config_destroy). Empty strings are refused. */
static int get_string(const sipd_scene *sc, const config_setting_t *g, const char *gpath,
                      const char *name, int required, const char **out)
{
    char key[KEYLEN];
    const config_setting_t *s = g ? config_setting_get_member(g, name) : NULL;
    key_join(key, gpath, name);
    if (!s)
        return required ? missing(sc, g, key, "a string") : SIPD_OK;
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_STRING)
        return err(sc, s, key, "expected a string \"...\", got %s", type_name(t));
    const char *v = config_setting_get_string(s);
    if (!v || !v[0])
        return err(sc, s, key, "must not be empty");
    *out = v;
    return SIPD_OK;
}

/* Entry i of an enum table (NULL past its end): an enum_entry list, or the method table. */
typedef const char *(*enum_at_fn)(const void *table, int i, int *value);

static const char *enum_table_at(const void *table, int i, int *value)
{
    const enum_entry *e = (const enum_entry *)table + i;
    *value = e->value;
    return e->name;
}

static const char *method_table_at(const void *table, int i, int *value)
{
    const sipd_method_info *mi = method_row(i);
    (void)table;
    *value = mi ? mi->method : 0;
    return mi ? mi->name : NULL;
}

static int get_enum_at(const sipd_scene *sc, const config_setting_t *g, const char *gpath,
                       const char *name, enum_at_fn at, const void *table, int *out)
{
    const char *v = NULL, *en;
    int rc = get_string(sc, g, gpath, name, 0, &v), i, ev;
    if (rc || !v)
        return rc;
    for (i = 0; (en = at(table, i, &ev)); i++) {
        if (strcmp(en, v) != 0)
            continue;
        if (ev >= 0) {
            *out = ev;
            return SIPD_OK;
        }
    }
    char key[KEYLEN], ok[512] = "", later[512] = "";
    int unsupported = 0;
    key_join(key, gpath, name);
    for (i = 0; (en = at(table, i, &ev)); i++) {
        const enum_entry ent = {en, ev}, *e = &ent;
        char *dst = e->value >= 0 ? ok : later;
        if (dst[0])
            strncat(dst, ", ", 511 - strlen(dst));
        strncat(dst, "\"", 511 - strlen(dst));
        strncat(dst, e->name, 511 - strlen(dst));
        strncat(dst, "\"", 511 - strlen(dst));
        if (strcmp(e->name, v) == 0)
            unsupported = 1;
    }
    const config_setting_t *s = config_setting_get_member(g, name);
    if (unsupported)
        return err(sc, s, key, "\"%s\" is not supported yet in this version (allowed: %s)", v,
                   ok);
    if (later[0])
        return err(sc, s, key, "unknown value \"%s\" (allowed: %s; planned: %s)", v, ok, later);
    return err(sc, s, key, "unknown value \"%s\" (allowed: %s)", v, ok);
}

static int get_enum(const sipd_scene *sc, const config_setting_t *g, const char *gpath,
                    const char *name, const enum_entry *table, int *out)
{
    return get_enum_at(sc, g, gpath, name, enum_table_at, table, out);
}

/* An array of exactly two floats (> 0; into d) or two ints (≥ 1; into n). */
static int get_pair(const sipd_scene *sc, const config_setting_t *g, const char *gpath, const char *name, double d[2],
                    int n[2])
{
    char key[KEYLEN];
    const config_setting_t *s = g ? config_setting_get_member(g, name) : NULL;
    int i;
    key_join(key, gpath, name);
    if (!s)
        return SIPD_OK;
    if (config_setting_type(s) != CONFIG_TYPE_ARRAY || config_setting_length(s) != 2)
        return err(sc, s, key, "expected an array of 2 %s", d ? "floats [a, b]" : "integers [a, b]");
    for (i = 0; i < 2; i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        int t = config_setting_type(e);
        if (d) {
            if (t != CONFIG_TYPE_FLOAT)
                return err(sc, s, key, "expected an array of 2 floats (write 1.0), got %s", type_name(t));
            d[i] = config_setting_get_float(e);
            if (!(d[i] > 0) || !isfinite(d[i]))
                return err(sc, s, key, "every entry must be > 0");
        } else {
            if (t != CONFIG_TYPE_INT)
                return err(sc, s, key, "expected an array of 2 integers, got %s", type_name(t));
            n[i] = config_setting_get_int(e);
            if (n[i] < 1 || n[i] > 100000)
                return err(sc, s, key, "every entry must be in [1, 100000]");
        }
    }
    return SIPD_OK;
}

/* An array (or list) of exactly three floats. */
static int get_vec3(const sipd_scene *sc, const config_setting_t *g, const char *gpath,
                    const char *name, int required, double out[3])
{
    char key[KEYLEN];
    const config_setting_t *s = g ? config_setting_get_member(g, name) : NULL;
    key_join(key, gpath, name);
    if (!s)
        return required ? missing(sc, g, key, "an array of 3 floats") : SIPD_OK;
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
        return err(sc, s, key, "expected an array of 3 floats [x, y, z], got %s", type_name(t));
    int n = config_setting_length(s);
    if (n != 3)
        return err(sc, s, key, "expected an array of 3 floats [x, y, z], got %d element%s", n,
                   n == 1 ? "" : "s");
    double v[3];
    for (int i = 0; i < 3; i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        int te = config_setting_type(e);
        if (te == CONFIG_TYPE_INT || te == CONFIG_TYPE_INT64)
            return err(sc, e, key, "expected an array of 3 floats (write %lld.0), got an integer",
                       (long long)config_setting_get_int64(e));
        if (te != CONFIG_TYPE_FLOAT)
            return err(sc, e, key, "expected an array of 3 floats, element %d is %s", i,
                       type_name(te));
        v[i] = config_setting_get_float(e);
        if (!isfinite(v[i]))
            return err(sc, e, key, "element %d is not finite", i);
        if (fabs(v[i]) > SCENE_MAX_FLOAT)
            return err(sc, e, key, "element %d out of range: |value| must be at most %g, got %g", i,
                       SCENE_MAX_FLOAT, v[i]);
    }
    memcpy(out, v, sizeof v);
    return SIPD_OK;
}

/* Optional group member: *out = NULL when absent. */
static int get_group(const sipd_scene *sc, const config_setting_t *g, const char *gpath,
                     const char *name, const config_setting_t **out)
{
    char key[KEYLEN];
    const config_setting_t *s = config_setting_get_member(g, name);
    key_join(key, gpath, name);
    *out = NULL;
    if (!s)
        return SIPD_OK;
    if (!config_setting_is_group(s))
        return err(sc, s, key, "expected a group { ... }, got %s",
                   type_name(config_setting_type(s)));
    *out = s;
    return SIPD_OK;
}

static char *xstrdup(const char *s)
{
    char *r = sipd_malloc(strlen(s) + 1);
    if (r)
        strcpy(r, s);
    return r;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Why a path that should be a regular file is not one. */
static const char *path_problem(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT || errno == ENOTDIR ? "not found" : strerror(errno);
    if (S_ISDIR(st.st_mode))
        return "is a directory";
    return S_ISREG(st.st_mode) ? "cannot be read" : "is not a regular file";
}

static int ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* ---------------------------------------------------------------- groups */

static int load_time(sipd_scene *sc, const config_setting_t *root)
{
    const config_setting_t *g;
    int rc = get_group(sc, root, "", "time", &g);
    if (rc || !g)
        return rc;
    if ((rc = check_keys(sc, g, "time", time_keys)) ||
        (rc = float_range(sc, g, "time", "dt", 0, &sc->dt, 0.0, 0, INFINITY, 0)) ||
        (rc = int_range(sc, g, "time", "substeps", 0, &sc->substeps, 1, INT_MAX)) ||
        (rc = int_range(sc, g, "time", "frames", 0, &sc->frames, 0, SIPD_MAX_FRAMES)) ||
        (rc = get_bool(sc, g, "time", "quasistatic", &sc->quasistatic)))
        return rc;
    return SIPD_OK;
}

static int load_solver(sipd_scene *sc, const config_setting_t *root)
{
    const config_setting_t *g;
    int rc = get_group(sc, root, "", "solver", &g);
    if (rc || !g)
        return rc;
    int method = sc->method, sweep = sc->sweep, ls = sc->line_search, proj = sc->projection;
    if ((rc = check_keys(sc, g, "solver", solver_keys)) ||
        (rc = get_enum_at(sc, g, "solver", "method", method_table_at, NULL, &method)) ||
        (rc = get_enum(sc, g, "solver", "sweep", sweep_table, &sweep)) ||
        (rc = int_range(sc, g, "solver", "iterations", 0, &sc->iterations, 1, SIPD_MAX_ITERATIONS)) ||
        (rc = float_range(sc, g, "solver", "tolerance", 0, &sc->tolerance, 0.0, 1, INFINITY,
                          0)) ||
        (rc = get_enum(sc, g, "solver", "line_search", ls_table, &ls)) ||
        (rc = get_enum(sc, g, "solver", "projection", proj_table, &proj)) ||
        (rc = get_bool(sc, g, "solver", "chebyshev", &sc->chebyshev)) ||
        (rc = float_range(sc, g, "solver", "chebyshev_rho", 0, &sc->chebyshev_rho, 0.0, 1, 1.0,
                          0)) ||
        (rc = float_range(sc, g, "solver", "omega", 0, &sc->omega, 0.0, 0, 2.0, 0)) ||
        (rc = get_bool(sc, g, "solver", "strict", &sc->strict)) ||
        (rc = get_enum(sc, g, "solver", "initial_guess", guess_table, &sc->initial_guess)))
        return rc;
    {   /* the global linear solve (newton, mixed-fem) */
        int linear = -1, global = method == SIPD_METHOD_NEWTON || method == SIPD_METHOD_MIXED;
        double cgt = -1;
        if ((rc = get_enum(sc, g, "solver", "linear", linear_table, &linear)) ||
            (rc = float_range(sc, g, "solver", "cg_tolerance", 0, &cgt, 0.0, 0, 1.0, 0)))
            return rc;
        if (!global && linear >= 0)
            return err(sc, config_setting_get_member(g, "linear"), "solver.linear",
                       "applies to the methods with a global linear solve (newton, mixed-fem), not \"%s\"",
                       method_info(method)->name);
        if (linear < 0)
            linear = method == SIPD_METHOD_MIXED ? SIPD_LINEAR_CHOLMOD : SIPD_LINEAR_PCG;
        if (cgt >= 0 && (!global || linear != SIPD_LINEAR_PCG))
            return err(sc, config_setting_get_member(g, "cg_tolerance"), "solver.cg_tolerance",
                       "applies to solver.linear = \"pcg\" (newton, mixed-fem) only; here the method is \"%s\" "
                       "with %s", method_info(method)->name,
                       global ? "solver.linear = \"cholmod\"" : "no global linear solve");
        sc->linear = (sipd_linear)linear;
        if (cgt >= 0)
            sc->cg_tolerance = cgt;
    }
    {   /* solver.coarse */
        const config_setting_t *cg;
        if ((rc = get_group(sc, g, "solver", "coarse", &cg)))
            return rc;
        if (cg) {
            const config_setting_t *lv = config_setting_get_member(cg, "levels");
            if ((rc = check_keys(sc, cg, "solver.coarse", coarse_keys)))
                return rc;
            if (lv && config_setting_type(lv) == CONFIG_TYPE_STRING) {   /* "auto" */
                if (strcmp(config_setting_get_string(lv), "auto"))
                    return err(sc, lv, "solver.coarse.levels", "expected 1, 2 or \"auto\", got \"%s\"",
                               config_setting_get_string(lv));
                sc->coarse_auto = 1;
            } else if (lv) {
                sc->coarse_auto = 0;
            }
            if ((lv && config_setting_type(lv) != CONFIG_TYPE_STRING &&
                 (rc = int_range(sc, cg, "solver.coarse", "levels", 0, &sc->coarse_levels, 1, 2))) ||
                (rc = int_range(sc, cg, "solver.coarse", "every", 0, &sc->coarse_every, 1, SIPD_MAX_ITERATIONS)) ||
                (rc = int_range(sc, cg, "solver.coarse", "size", 0, &sc->coarse_size, 1, 1024)) ||
                (rc = int_range(sc, cg, "solver.coarse", "refresh", 0, &sc->coarse_refresh, 0, SIPD_MAX_ITERATIONS)) ||
                (rc = get_enum(sc, cg, "solver.coarse", "basis", coarse_basis_table, &sc->coarse_basis)))
                return rc;
            if (!sc->coarse_auto && sc->coarse_levels > 1 && (method != SIPD_METHOD_SIPD || sweep != SIPD_SWEEP_JACOBI))
                return err(sc, cg, "solver.coarse",
                           "a coarse level needs method \"sipd\" with sweep \"jacobi\" (got \"%s\", \"%s\")",
                           method_info(method) ? method_info(method)->name : "?",
                           sweep == SIPD_SWEEP_JACOBI ? "jacobi" : "gauss-seidel");
        }
    }
    if (sc->quasistatic && method_info(method)->no_quasistatic)   /* method.h */
        return err(sc, config_setting_get_member(g, "method"), "solver.method",
                   "\"%s\" %s: not usable with time.quasistatic = true", method_info(method)->name,
                   method_info(method)->no_quasistatic);
    sc->method = (sipd_method)method;
    sc->sweep = (sipd_sweep)sweep;
    sc->line_search = (sipd_line_search)ls;
    sc->projection = (sipd_projection)proj;
    return SIPD_OK;
}

static int load_materials(sipd_scene *sc, const config_setting_t *root)
{
    const config_setting_t *l = config_setting_get_member(root, "materials");
    if (!l)
        return err(sc, NULL, "materials",
                   "required key missing (a list ( { name = ...; youngs = ...; poisson = ...; }"
                   " ) with at least one material)");
    if (!config_setting_is_list(l))
        return err(sc, l, "materials", "expected a list ( { ... }, ... ), got %s",
                   type_name(config_setting_type(l)));
    int n = config_setting_length(l);
    if (n < 1)
        return err(sc, l, "materials", "at least one material is required");
    sc->materials = sipd_calloc((size_t)n, sizeof *sc->materials);
    if (!sc->materials)
        return SIPD_EFAIL;
    for (int i = 0; i < n; i++) {
        const config_setting_t *g = config_setting_get_elem(l, (unsigned)i);
        sipd_scene_material *m = &sc->materials[i];
        char path[KEYLEN], key[KEYLEN];
        const char *name = NULL;
        int model = SIPD_MAT_STABLE_NEOHOOKEAN, rc;
        key_index(path, "materials", i);
        if (!config_setting_is_group(g))
            return err(sc, g, path, "expected a group { ... }, got %s",
                       type_name(config_setting_type(g)));
        m->line = setting_line(sc, g);
        m->density = 1000.0;
        if ((rc = check_keys(sc, g, path, material_keys)) ||
            (rc = get_string(sc, g, path, "name", 1, &name)) ||
            (rc = get_enum(sc, g, path, "model", model_table, &model)) ||
            (rc = float_range(sc, g, path, "youngs", 1, &m->youngs, 0.0, 0, INFINITY, 0)) ||
            (rc = float_range(sc, g, path, "poisson", 1, &m->poisson, -1.0, 0, 0.5, 0)) ||
            (rc = float_range(sc, g, path, "density", 0, &m->density, 0.0, 0, INFINITY, 0)))
            return rc;
        key_join(key, path, "name");
        if (strlen(name) >= sizeof m->name)
            return err(sc, config_setting_get_member(g, "name"), key,
                       "too long (at most %d characters)", (int)sizeof m->name - 1);
        for (int j = 0; j < i; j++)
            if (strcmp(sc->materials[j].name, name) == 0)
                return err(sc, config_setting_get_member(g, "name"), key,
                           "duplicate material name \"%s\" (first defined on line %d)", name,
                           sc->materials[j].line);
        strcpy(m->name, name);
        m->model = (sipd_material_model)model;
        sc->nmaterials = i + 1;
    }
    return SIPD_OK;
}

static int load_box(sipd_scene *sc, const config_setting_t *g, const char *path,
                    sipd_scene_box *b)
{
    int rc;
    if ((rc = get_vec3(sc, g, path, "box_min", 1, b->box_min)) ||
        (rc = get_vec3(sc, g, path, "box_max", 1, b->box_max)))
        return rc;
    for (int k = 0; k < 3; k++)
        if (b->box_min[k] > b->box_max[k]) {
            char key[KEYLEN];
            key_join(key, path, "box_min");
            return err(sc, config_setting_get_member(g, "box_min"), key,
                       "box_min must be <= box_max componentwise (%c: %g > %g)", "xyz"[k],
                       b->box_min[k], b->box_max[k]);
        }
    return SIPD_OK;
}

/* `pin`/`move`: one group, or a list of groups. */
static int load_boxes(sipd_scene *sc, const config_setting_t *body, const char *bpath,
                      const char *name, sipd_scene_body *b)
{
    char lpath[KEYLEN], path[KEYLEN];
    const config_setting_t *s = config_setting_get_member(body, name);
    int is_move = strcmp(name, "move") == 0;
    key_join(lpath, bpath, name);
    if (!s)
        return SIPD_OK;
    int single = config_setting_is_group(s);
    if (!single && !config_setting_is_list(s))
        return err(sc, s, lpath, "expected a group { box_min = [...]; box_max = [...]; } or a "
                                 "list of such groups, got %s",
                   type_name(config_setting_type(s)));
    int n = single ? 1 : config_setting_length(s);
    if (n > SIPD_MAX_BOXES)
        return err(sc, s, lpath, "at most %d boxes per body, got %d", SIPD_MAX_BOXES, n);
    for (int i = 0; i < n; i++) {
        const config_setting_t *g = single ? s : config_setting_get_elem(s, (unsigned)i);
        int rc;
        if (single)
            memcpy(path, lpath, sizeof path);
        else
            key_index(path, lpath, i);
        if (!config_setting_is_group(g))
            return err(sc, g, path, "expected a group { box_min = [...]; box_max = [...]; }, "
                                    "got %s",
                       type_name(config_setting_type(g)));
        if ((rc = check_keys(sc, g, path, is_move ? move_keys : pin_keys)))
            return rc;
        b->box_file[is_move][i] = setting_input(sc, g);
        b->box_line[is_move][i] = setting_line(sc, g);
        b->box_list[is_move] = !single;
        if (!is_move) {
            if ((rc = load_box(sc, g, path, &b->pin[i])))
                return rc;
            b->npin = i + 1;
            continue;
        }
        sipd_scene_move *mv = &b->move[i];
        if ((rc = load_box(sc, g, path, &mv->box)))
            return rc;
        for (int k = 0; k < 3; k++)
            mv->center[k] = 0.5 * (mv->box.box_min[k] + mv->box.box_max[k]);
        if ((rc = get_vec3(sc, g, path, "velocity", 0, mv->velocity)) ||
            (rc = get_vec3(sc, g, path, "angular_velocity", 0, mv->angular_velocity)) ||
            (rc = get_vec3(sc, g, path, "center", 0, mv->center)))
            return rc;
        b->nmove = i + 1;
    }
    return SIPD_OK;
}

/* Why mesh path p (not a .msh or .obj, and no TetGen base name: p.node or p.ele is missing)
 * cannot be a mesh: 1 a file of another format (p exists, or its extension is a mesh format
 * sipd-run does not read), 2 a TetGen file named with its extension (p.node/.ele/.face where the
 * base's .node exists), 0 neither (a TetGen base name whose files are missing). */
static int mesh_name_problem(const char *p)
{
    static const char *const other[] = {".vtk", ".vtu", ".vtp", ".stl", ".ply", ".off", ".mesh", ".meshb", ".inp",
                                        ".med", ".unv", ".xdmf", ".xmf", ".h5", ".exo", ".e", ".cgns", ".su2",
                                        ".bdf", ".nas", ".dat", ".step", ".stp", ".iges", ".igs", ".brep", ".geo",
                                        ".poly", ".smesh", NULL};
    const char *slash = strrchr(p, '/'), *dot = strrchr(slash ? slash : p, '.');
    if (dot && (ends_with(p, ".node") || ends_with(p, ".ele") || ends_with(p, ".face"))) {
        size_t n = (size_t)(dot - p);
        char *q = sipd_malloc(n + 6);
        int tet = 0;
        if (q) {
            memcpy(q, p, n);
            strcpy(q + n, ".node");
            tet = is_file(q);
            free(q);
        }
        if (tet)
            return 2;
    }
    if (is_file(p))
        return 1;
    for (int k = 0; dot && other[k]; k++)
        if (strcasecmp(dot, other[k]) == 0)
            return 1;
    return 0;
}

/* How to turn mesh file p of another format into one sipd-run reads. */
static const char *mesh_convert_hint(const char *p)
{
    static const char *const surface[] = {".stl", ".off", ".ply", ".poly", ".smesh", NULL};
    const char *slash = strrchr(p, '/'), *dot = strrchr(slash ? slash : p, '.');
    if (dot && strcasecmp(dot, ".geo") == 0)
        return "mesh the geometry first: gmsh -3 FILE.geo -format msh41 -o FILE.msh (-2 for a surface)";
    for (int k = 0; dot && surface[k]; k++)
        if (strcasecmp(dot, surface[k]) == 0)
            return "for a solid, tetrahedralise it: tetgen -pq1.414 FILE, then mesh = \"FILE.1\" (the base name); for a "
                   "shell, convert it to .obj or .msh";
    return "convert it to .msh, e.g. with meshio (docs/troubleshooting.md)";
}

/* mesh: a .msh or .obj file, or a TetGen base name whose .node and .ele exist. */
static int resolve_mesh(sipd_scene *sc, const config_setting_t *g, const char *bpath,
                        const char *mesh, char **out)
{
    char key[KEYLEN];
    const config_setting_t *s = config_setting_get_member(g, "mesh");
    char *p = sipd_path_join(sc->dir, mesh);
    key_join(key, bpath, "mesh");
    if (!p)
        return SIPD_EFAIL;
    if (mesh_single_file(p)) {
        if (!is_file(p)) {
            err(sc, s, key, "mesh file '%s' %s", p, path_problem(p));
            free(p);
            return SIPD_EINPUT;
        }
    } else {
        size_t n = strlen(p);
        char *q = sipd_malloc(n + 6);
        if (!q) {
            free(p);
            return SIPD_EFAIL;
        }
        const char *ext[2] = {".node", ".ele"};
        for (int k = 0; k < 2; k++) {
            memcpy(q, p, n);
            strcpy(q + n, ext[k]);
            if (!is_file(q)) {
                int why = mesh_name_problem(p);
                if (why) {   /* not a TetGen base name: a file of another format, or a TetGen file */
                    if (why == 2)
                        err(sc, s, key, "'%s' is a TetGen file: give the base name without .node/.ele/.face "
                            "(mesh = \"%.*s\")", p, (int)(strlen(mesh) - strlen(strrchr(mesh, '.'))), mesh);
                    else
                        err(sc, s, key, "unsupported mesh format: '%s' (sipd-run reads " MESH_FORMATS "); %s", p,
                            mesh_convert_hint(p));
                    free(q);
                    free(p);
                    return SIPD_EINPUT;
                }
                err(sc, s, key,
                    "TetGen mesh '%s' not found: '%s' %s (mesh is a .msh or .obj file or a "
                    "TetGen base name with .node and .ele files)",
                    p, q, strcmp(path_problem(q), "not found") ? path_problem(q) : "is missing");
                free(q);
                free(p);
                return SIPD_EINPUT;
            }
        }
        free(q);
    }
    *out = p;
    return SIPD_OK;
}

/* initial_positions: a .node or .msh file, or FILE.h5:FRAME[:BODY] (initpos.h); FILE relative to
 * the scene's directory like mesh.  Its contents are checked against the mesh by model_build. */
static int resolve_initial_positions(sipd_scene *sc, const config_setting_t *g, const char *bpath,
                                     const char *spec, sipd_scene_body *b)
{
    char key[KEYLEN];
    const config_setting_t *s = config_setting_get_member(g, "initial_positions");
    size_t flen = strlen(spec);
    long frame, body;
    int kind = initpos_split(spec, &flen, &frame, &body);
    key_join(key, bpath, "initial_positions");
    b->initial_positions_line = setting_line(sc, s);
    if (kind < 0)
        return err(sc, s, key, "\"%s\": an HDF5 output needs a frame: \"FILE.h5:FRAME\" or "
                   "\"FILE.h5:FRAME:BODY\" (FRAME 0-based, -1 = the last)", spec);
    if (kind == 0 && !ends_with(spec, ".node") && !mesh_single_file(spec))
        return err(sc, s, key, "\"%s\": expected a TetGen .node file, a gmsh .msh or .obj file or \"FILE.h5:FRAME\"",
                   spec);
    char *file = sipd_malloc(flen + 1);
    if (!file)
        return SIPD_EFAIL;
    memcpy(file, spec, flen);
    file[flen] = '\0';
    char *p = sipd_path_join(sc->dir, file);
    free(file);
    if (!p)
        return SIPD_EFAIL;
    if (!is_file(p)) {
        err(sc, s, key, "file '%s' not found", p);
        free(p);
        return SIPD_EINPUT;
    }
    b->initial_positions = sipd_malloc(strlen(p) + strlen(spec + flen) + 1);
    if (b->initial_positions) {
        strcpy(b->initial_positions, p);
        strcat(b->initial_positions, spec + flen);
    }
    free(p);
    return b->initial_positions ? SIPD_OK : SIPD_EFAIL;
}

static int load_bodies(sipd_scene *sc, const config_setting_t *root)
{
    const config_setting_t *l = config_setting_get_member(root, "bodies");
    if (!l)
        return err(sc, NULL, "bodies",
                   "required key missing (a list ( { mesh = ...; material = ...; } ) with at "
                   "least one body)");
    if (!config_setting_is_list(l))
        return err(sc, l, "bodies", "expected a list ( { ... }, ... ), got %s",
                   type_name(config_setting_type(l)));
    int n = config_setting_length(l);
    if (n < 1)
        return err(sc, l, "bodies", "at least one body is required");
    sc->bodies = sipd_calloc((size_t)n, sizeof *sc->bodies);
    if (!sc->bodies)
        return SIPD_EFAIL;
    for (int i = 0; i < n; i++) {
        const config_setting_t *g = config_setting_get_elem(l, (unsigned)i);
        sipd_scene_body *b = &sc->bodies[i];
        char path[KEYLEN], key[KEYLEN];
        const char *mesh = NULL, *mat = NULL, *ipos = NULL;
        int rc;
        key_index(path, "bodies", i);
        if (!config_setting_is_group(g))
            return err(sc, g, path, "expected a group { ... }, got %s",
                       type_name(config_setting_type(g)));
        sc->nbodies = i + 1; /* counted before anything is owned, so scene_free sees it */
        b->line = setting_line(sc, g);
        b->file = setting_input(sc, g);
        b->scale = 1.0;
        b->initial_stretch[0] = b->initial_stretch[1] = b->initial_stretch[2] = 1.0;
        b->radius = 0.001;
        b->thickness = 0.001;
        b->bending_stiffness = -1;
        b->bending = SIPD_BENDING_AUTO;
        b->gen_length = 1.0;
        b->gen_segments = 20;
        b->gen_size[0] = b->gen_size[1] = 1.0;
        b->gen_cells[0] = b->gen_cells[1] = 20;
        {
            const config_setting_t *gen = NULL;
            if ((rc = check_keys(sc, g, path, body_keys)) ||
                (rc = get_group(sc, g, path, "generate", &gen)))
                return rc;
            if (gen) {   /* a generated body (meshgen.h) instead of a mesh file */
                char gpath[KEYLEN];
                key_join(gpath, path, "generate");
                if ((rc = check_keys(sc, gen, gpath, generate_keys)) ||
                    (rc = get_enum(sc, gen, gpath, "shape", gen_table, &b->gen_shape)) ||
                    (rc = float_range(sc, gen, gpath, "length", 0, &b->gen_length, 0.0, 0, INFINITY, 0)) ||
                    (rc = int_range(sc, gen, gpath, "segments", 0, &b->gen_segments, 1, 10000000)) ||
                    (rc = get_pair(sc, gen, gpath, "size", b->gen_size, NULL)) ||
                    (rc = get_pair(sc, gen, gpath, "cells", NULL, b->gen_cells)))
                    return rc;
                if (!config_setting_get_member(gen, "shape")) {
                    key_join(key, gpath, "shape");
                    return missing(sc, gen, key, "\"rod\" or \"cloth\"");
                }
                {   /* the keys of the other shape would do nothing */
                    static const char *const rod_only[] = {"length", "segments", NULL}, *const cloth_only[] = {"size", "cells", NULL};
                    const char *const *other = b->gen_shape == SIPD_GEN_ROD ? cloth_only : rod_only;
                    for (int k = 0; other[k]; k++)
                        if (config_setting_get_member(gen, other[k])) {
                            key_join(key, gpath, other[k]);
                            return err(sc, config_setting_get_member(gen, other[k]), key, "not a key of shape \"%s\"",
                                       b->gen_shape == SIPD_GEN_ROD ? "rod" : "cloth");
                        }
                }
                if (config_setting_get_member(g, "mesh")) {
                    key_join(key, path, "mesh");
                    return err(sc, config_setting_get_member(g, "mesh"), key,
                               "mesh and generate both make the body: give one");
                }
            }
            if ((!gen && (rc = get_string(sc, g, path, "mesh", 1, &mesh))) ||
                (rc = get_string(sc, g, path, "material", 1, &mat)) ||
                (rc = get_enum(sc, g, path, "elements", elements_table, &b->elements)) ||
                (rc = float_range(sc, g, path, "radius", 0, &b->radius, 0.0, 0, INFINITY, 0)) ||
                (rc = float_range(sc, g, path, "spring_stiffness", 0, &b->spring_k, 0.0, 0, INFINITY, 0)) ||
                (rc = float_range(sc, g, path, "thickness", 0, &b->thickness, 0.0, 0, INFINITY, 0)) ||
                (rc = float_range(sc, g, path, "bending_stiffness", 0, &b->bending_stiffness, 0.0, 1, INFINITY, 0)) ||
                (rc = get_enum(sc, g, path, "bending", bending_table, &b->bending)))
                return rc;
            if (b->gen_shape == SIPD_GEN_CLOTH && (b->elements == SIPD_ELEMENTS_SOLID || b->elements == SIPD_ELEMENTS_ROD)) {
                key_join(key, path, "elements");
                return err(sc, config_setting_get_member(g, "elements"), key,
                           "a generated cloth is triangles: use \"shell\", \"springs\" or \"auto\"");
            }
            {   /* shell-only keys on another kind would do nothing */
                static const char *const shell_only[] = {"thickness", "bending_stiffness", "bending", NULL};
                /* a mesh file's kind is known only once it is loaded (model.c checks it then); springs of
                   triangles take their masses ρ A t / 3 from the thickness */
                int shell = b->gen_shape == SIPD_GEN_CLOTH ||
                            (b->gen_shape == SIPD_GEN_NONE && b->elements != SIPD_ELEMENTS_SOLID &&
                             b->elements != SIPD_ELEMENTS_ROD);
                b->shell_keys = config_setting_get_member(g, "thickness") || config_setting_get_member(g, "bending_stiffness") ||
                                config_setting_get_member(g, "bending");
                for (int k = 0; shell_only[k] && !shell; k++)
                    if (config_setting_get_member(g, shell_only[k])) {
                        key_join(key, path, shell_only[k]);
                        return err(sc, config_setting_get_member(g, shell_only[k]), key,
                                   "only meaningful for a shell or a generated cloth (elements = \"shell\", generate.shape = \"cloth\")");
                    }
            }
            if (b->gen_shape == SIPD_GEN_ROD && (b->elements == SIPD_ELEMENTS_SOLID || b->elements == SIPD_ELEMENTS_SHELL)) {
                key_join(key, path, "elements");
                return err(sc, config_setting_get_member(g, "elements"), key,
                           "a generated rod has no tetrahedra or triangles: use \"rod\", \"springs\" or \"auto\"");
            }
            if (config_setting_get_member(g, "spring_stiffness") && b->elements != SIPD_ELEMENTS_SPRINGS) {
                key_join(key, path, "spring_stiffness");
                return err(sc, config_setting_get_member(g, "spring_stiffness"), key,
                           "only meaningful with elements = \"springs\"");
            }
        }
        b->material = -1;
        for (int j = 0; j < sc->nmaterials; j++)
            if (strcmp(sc->materials[j].name, mat) == 0)
                b->material = j;
        if (b->material < 0) {
            char list[512] = "";
            for (int j = 0; j < sc->nmaterials; j++) {
                if (j)
                    strncat(list, ", ", sizeof list - strlen(list) - 1);
                strncat(list, sc->materials[j].name, sizeof list - strlen(list) - 1);
            }
            key_join(key, path, "material");
            return err(sc, config_setting_get_member(g, "material"), key,
                       "unknown material \"%s\" (defined: %s)", mat, list);
        }
        if ((mesh && (rc = resolve_mesh(sc, g, path, mesh, &b->mesh))) ||
            (rc = get_vec3(sc, g, path, "translate", 0, b->translate)) ||
            (rc = get_vec3(sc, g, path, "rotate_deg", 0, b->rotate_deg)) ||
            (rc = float_range(sc, g, path, "scale", 0, &b->scale, 0.0, 0, INFINITY, 0)) ||
            (rc = get_vec3(sc, g, path, "velocity", 0, b->velocity)) ||
            (rc = get_vec3(sc, g, path, "initial_stretch", 0, b->initial_stretch)) ||
            (rc = load_boxes(sc, g, path, "pin", b)) || (rc = load_boxes(sc, g, path, "move", b)) ||
            (rc = get_bool(sc, g, path, "obstacle", &b->obstacle)) ||
            (rc = get_vec3(sc, g, path, "angular_velocity", 0, b->angular_velocity)) ||
            (rc = get_vec3(sc, g, path, "center", 0, b->center)) ||
            (rc = get_string(sc, g, path, "initial_positions", 0, &ipos)) ||
            (ipos && (rc = resolve_initial_positions(sc, g, path, ipos, b))))
            return rc;
        if (ipos && (b->initial_stretch[0] != 1 || b->initial_stretch[1] != 1 || b->initial_stretch[2] != 1)) {
            key_join(key, path, "initial_stretch");
            return err(sc, config_setting_get_member(g, "initial_stretch"), key,
                       "initial_stretch and initial_positions both set the state at t = 0: give one");
        }
        b->obstacle = b->obstacle == 1;
        b->center_set = config_setting_get_member(g, "center") != NULL;
        if (b->obstacle && (b->npin || b->nmove)) {
            key_join(key, path, b->npin ? "pin" : "move");
            return err(sc, config_setting_get_member(g, b->npin ? "pin" : "move"), key,
                       "an obstacle moves as a whole (velocity, angular_velocity, center): pin and move "
                       "boxes do not apply");
        }
        if (!b->obstacle) {   /* obstacle-only keys on a deformable body would do nothing */
            static const char *const only[] = {"angular_velocity", "center", NULL};
            for (int k = 0; only[k]; k++)
                if (config_setting_get_member(g, only[k])) {
                    key_join(key, path, only[k]);
                    return err(sc, config_setting_get_member(g, only[k]), key,
                               "only meaningful with obstacle = true (a deformable body's motion is set by "
                               "velocity, pin and move)");
                }
        }
        for (int k = 0; k < 3; k++)
            if (!(b->initial_stretch[k] > 0)) {
                key_join(key, path, "initial_stretch");
                return err(sc, config_setting_get_member(g, "initial_stretch"), key,
                           "every factor must be > 0");
            }
    }
    return SIPD_OK;
}

/* Contact: ground plane, body–body (always when enabled) and, with self = true, self-contact.
 * An enabled group needs something to collide with: a ground, two bodies, or self-contact. */
static int load_contact(sipd_scene *sc, const config_setting_t *root)
{
    const config_setting_t *g, *ground;
    int rc, enabled = -1, self = 0, ccd = -1;
    double nn;
    if ((rc = get_group(sc, root, "", "contact", &g)) || !g)
        return rc;
    if ((rc = check_keys(sc, g, "contact", contact_keys)) ||
        (rc = get_bool(sc, g, "contact", "enabled", &enabled)) ||
        (rc = float_range(sc, g, "contact", "dhat", 0, &sc->dhat, 0.0, 0, INFINITY, 0)) ||
        (rc = float_range(sc, g, "contact", "stiffness", 0, &sc->contact_stiffness, 0.0, 1, INFINITY, 0)) ||
        (rc = float_range(sc, g, "contact", "friction", 0, &sc->friction, 0.0, 1, INFINITY, 0)) ||
        (rc = float_range(sc, g, "contact", "friction_velocity", 0, &sc->friction_velocity, 0.0, 0, INFINITY,
                          0)) ||
        (rc = get_bool(sc, g, "contact", "self", &self)) ||
        (rc = get_bool(sc, g, "contact", "ccd", &ccd)) ||
        (rc = float_range(sc, g, "contact", "thickness", 0, &sc->contact_thickness, 0.0, 1, INFINITY, 0)) ||
        (rc = int_range(sc, g, "contact", "detect_every", 0, &sc->detect_every, 1, INT_MAX)) ||
        (rc = get_group(sc, g, "contact", "ground", &ground)))
        return rc;
    if (ground && ((rc = check_keys(sc, ground, "contact.ground", ground_keys)) ||
                   (rc = get_float(sc, ground, "contact.ground", "height", 0, &sc->ground_height)) ||
                   (rc = get_vec3(sc, ground, "contact.ground", "normal", 0, sc->ground_normal))))
        return rc;
    sc->ground = ground != NULL;
    sc->contact = enabled < 0 ? config_setting_length(g) > 0 : enabled; /* a non-empty group enables */
    sc->self_contact = self == 1;
    sc->ccd = ccd != 0;
    if (!sc->contact)
        return SIPD_OK;
    if (!ground && !sc->self_contact && sc->nbodies < 2)
        return err(sc, enabled >= 0 ? config_setting_get_member(g, "enabled") : g,
                   enabled >= 0 ? "contact.enabled" : "contact",
                   "nothing to collide with: one body, no ground and self = false (add ground = "
                   "{ height = 0.0; }; or self = true;)");
    if (!ground)
        return SIPD_OK;
    nn = sqrt(sc->ground_normal[0] * sc->ground_normal[0] + sc->ground_normal[1] * sc->ground_normal[1] +
              sc->ground_normal[2] * sc->ground_normal[2]);
    if (!(nn > 0))
        return err(sc, config_setting_get_member(ground, "normal"), "contact.ground.normal",
                   "the normal must not be zero");
    for (int i = 0; i < 3; i++)
        sc->ground_normal[i] /= nn;
    return SIPD_OK;
}

/* output.fields: an array ["a", "b"] or a list ("a", "b") of field names, each at most once. */
static int get_fields(sipd_scene *sc, const config_setting_t *g)
{
    const config_setting_t *s = g ? config_setting_get_member(g, "fields") : NULL;
    int n, i, f, t;
    if (!s)
        return SIPD_OK;
    t = config_setting_type(s);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
        return err(sc, s, "output.fields", "expected an array of field names [\"displacement\", ...], got %s",
                   type_name(t));
    n = config_setting_length(s);
    for (i = 0; i < n; i++) {
        const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
        const char *v = config_setting_type(e) == CONFIG_TYPE_STRING ? config_setting_get_string(e) : NULL;
        char list[256] = "";
        if (!v)
            return err(sc, e, "output.fields", "entry %d is %s, expected a field name string", i,
                       type_name(config_setting_type(e)));
        for (f = 0; f < SIPD_FIELD_COUNT && strcmp(v, field_names[f]) != 0; f++) {}
        if (f == SIPD_FIELD_COUNT) {
            for (f = 0; f < SIPD_FIELD_COUNT; f++) {
                if (f)
                    strncat(list, ", ", sizeof list - strlen(list) - 1);
                strncat(list, field_names[f], sizeof list - strlen(list) - 1);
            }
            return err(sc, e, "output.fields", "unknown field \"%s\" (known: %s)", v, list);
        }
        if (sc->fields & (1u << f))
            return err(sc, e, "output.fields", "\"%s\" is listed twice", v);
        sc->fields |= 1u << f;
    }
    return SIPD_OK;
}

/* output.history: "all" (every iteration's row), "none", or "every N" (N >= 1: iterations 0, N,
 * 2N, ... of each solve and its last one) into *every (1, 0, N). */
static int get_history(const sipd_scene *sc, const config_setting_t *g, int *every)
{
    const char *v = NULL, *p;
    char *end;
    long long n;
    int rc = get_string(sc, g, "output", "history", 0, &v);
    if (rc || !v)
        return rc;
    if (!strcmp(v, "all")) {
        *every = 1;
        return SIPD_OK;
    }
    if (!strcmp(v, "none")) {
        *every = 0;
        return SIPD_OK;
    }
    if (!strncmp(v, "every", 5) && (v[5] == ' ' || v[5] == '\t')) {
        for (p = v + 5; *p == ' ' || *p == '\t'; p++)
            ;
        errno = 0;
        n = *p >= '0' && *p <= '9' ? strtoll(p, &end, 10) : -1;
        if (n >= 0 && errno == 0 && *end == '\0') {
            if (n < 1 || n > INT_MAX)
                return err(sc, config_setting_get_member(g, "history"), "output.history",
                           "\"every N\" needs N in [1, %d], got \"%s\"", INT_MAX, v);
            *every = (int)n;
            return SIPD_OK;
        }
    }
    return err(sc, config_setting_get_member(g, "history"), "output.history",
               "expected \"all\", \"none\" or \"every N\" (N a positive integer), got \"%s\"", v);
}

static int load_output(sipd_scene *sc, const config_setting_t *root)
{
    const config_setting_t *g;
    const char *file = NULL;
    int rc = get_group(sc, root, "", "output", &g);
    if (rc)
        return rc;
    if (g && ((rc = check_keys(sc, g, "output", output_keys)) ||
              (rc = get_string(sc, g, "output", "file", 0, &file)) ||
              (rc = int_range(sc, g, "output", "every", 0, &sc->output_every, 1, INT_MAX)) ||
              (rc = int_range(sc, g, "output", "compression", 0, &sc->compression, 0, 9)) ||
              (rc = get_bool(sc, g, "output", "xdmf", &sc->xdmf)) ||
              (rc = int_range(sc, g, "output", "checkpoint_every", 0, &sc->checkpoint_every, 0, INT_MAX)) ||
              (rc = float_range(sc, g, "output", "checkpoint_seconds", 0, &sc->checkpoint_seconds, 0.0, 1,
                                INFINITY, 0)) ||
              (rc = get_fields(sc, g)) ||
              (rc = get_history(sc, g, &sc->history_every))))
        return rc;
    if (file) {
        sc->output_file = sipd_path_join(sc->dir, file);
    } else {
        /* results/<scene basename without extension>.h5, relative to the current directory */
        const char *base = strrchr(sc->path, '/');
        base = base ? base + 1 : sc->path;
        size_t n = strlen(base);
        const char *dot = strrchr(base, '.');
        if (dot && dot != base)
            n = (size_t)(dot - base);
        sc->output_file = sipd_malloc(n + 12);
        if (sc->output_file)
            snprintf(sc->output_file, n + 12, "results/%.*s.h5", (int)n, base);
    }
    return sc->output_file ? SIPD_OK : SIPD_EFAIL;
}

static int load_root(sipd_scene *sc, const config_setting_t *root)
{
    int rc, device = sc->device, precision = sc->precision;
    if ((rc = check_keys(sc, root, "", root_keys)) || (rc = load_time(sc, root)) ||
        (rc = load_solver(sc, root)) ||
        (rc = get_enum(sc, root, "", "device", device_table, &device)) ||
        (rc = get_enum(sc, root, "", "precision", precision_table, &precision)) ||
        (rc = get_vec3(sc, root, "", "gravity", 0, sc->gravity)) ||
        (rc = load_materials(sc, root)) || (rc = load_bodies(sc, root)) ||
        (rc = load_contact(sc, root)) || (rc = load_output(sc, root)))
        return rc;
    if (sc->coarse_auto)   /* solver.coarse.levels = "auto": 2, used where it applies (scene_coarse_on) */
        sc->coarse_levels = 2;
    if (sc->method == SIPD_METHOD_MIXED)   /* mixed-fem needs the model in terms of S (physics/mixed.h) */
        for (int b = 0; b < sc->nbodies; b++) {
            const sipd_scene_material *mt = &sc->materials[sc->bodies[b].material];
            if (!mixed_model_valid((int)mt->model)) {
                sipd_error_at(sc->path, mt->line, "materials[%d].model: \"%s\" (material \"%s\", used by bodies[%d]) has "
                              "no stretch (S) form for solver.method = \"mixed-fem\" (it has: stable-neohookean, "
                              "neohookean, arap, corotational)",
                              sc->bodies[b].material, scene_model_name(mt->model), mt->name, b);
                return SIPD_EINPUT;
            }
        }
    sc->device = (sipd_device)device;
    sc->precision = (sipd_precision)precision;
    return SIPD_OK;
}

int scene_load(const char *path, sipd_scene *sc)
{
    config_t cf;
    int rc;

    memset(sc, 0, sizeof *sc);
    sc->dt = 1.0 / 60.0;
    sc->substeps = 1;
    sc->frames = 60;
    sc->quasistatic = 0;
    sc->method = SIPD_DEFAULT_METHOD;
    sc->sweep = SIPD_SWEEP_JACOBI;
    sc->iterations = 1000;
    sc->tolerance = 1e-5;
    sc->line_search = SIPD_LS_AUTO;
    sc->projection = SIPD_PROJ_EXPANDED;
    sc->chebyshev = 0;
    sc->chebyshev_rho = 0.0;
    sc->omega = 1.0;
    sc->linear = SIPD_LINEAR_PCG;
    sc->cg_tolerance = 1e-10;
    sc->coarse_levels = 1;
    sc->coarse_auto = 1;   /* docs/two-level.md: on for sipd with the Jacobi sweep */
    sc->coarse_every = 10;
    sc->coarse_size = 8;
    sc->coarse_refresh = 0;
    sc->coarse_basis = SIPD_COARSE_BASIS_AUTO;
    sc->initial_guess = SIPD_GUESS_ADAPTIVE;
    sc->device = SIPD_DEVICE_AUTO;
    sc->precision = SIPD_PRECISION_AUTO;
    sc->gravity[0] = 0.0;
    sc->gravity[1] = -9.81;
    sc->gravity[2] = 0.0;
    sc->output_every = 1;
    sc->compression = 4;
    sc->xdmf = 1;
    sc->history_every = 1;
    sc->dhat = 0.03;
    sc->friction_velocity = 1e-3;
    sc->detect_every = 4;
    sc->ccd = 1;
    sc->contact_thickness = -1;
    sc->ground_normal[1] = 1.0;

    sc->path = xstrdup(path);
    sc->dir = sipd_dirname(path);
    if (!sc->path || !sc->dir) {
        scene_free(sc);
        return SIPD_EFAIL;
    }
    /* checked and expanded here, parsed by libconfig from the buffer (see "scene text") */
    scene_text st;
    memset(&st, 0, sizeof st);
    rc = text_add_file(&st, path, sc->dir, NULL, 0, 0);
    if (rc == SIPD_OK) {
        sc->text = st.top; /* the scene file itself, stored in the output */
        st.top = NULL;
        sc->inputs = sipd_calloc((size_t)st.nfiles, sizeof *sc->inputs);
        if (!sc->text || !sc->inputs)
            rc = SIPD_EFAIL;
        for (int i = 0; rc == SIPD_OK && i < st.nfiles; i++) {
            if (!(sc->inputs[i] = xstrdup(st.files[i])))
                rc = SIPD_EFAIL;
            sc->ninputs = i + 1;
        }
    }
    if (rc) {
        text_free(&st);
        scene_free(sc);
        return rc;
    }

    config_init(&cf);
    cur_text = &st;
    if (!config_read_string(&cf, st.buf ? st.buf : "")) {
        int line = config_error_line(&cf);
        const char *f = text_locate(&st, line, &line);
        char keys[512];
        scene_text_keys(&st, config_error_line(&cf), keys, sizeof keys);   /* libconfig names no key */
        if (keys[0])
            sipd_error_at(f ? f : path, line, "%s: %s", keys, config_error_text(&cf));
        else
            sipd_error_at(f ? f : path, line, "%s", config_error_text(&cf));
        rc = SIPD_EINPUT;
    } else {
        rc = load_root(sc, config_root_setting(&cf));
    }
    config_destroy(&cf);
    cur_text = NULL;
    text_free(&st);
    if (rc)
        scene_free(sc);
    return rc;
}

void scene_free(sipd_scene *sc)
{
    if (!sc)
        return;
    if (sc->bodies)
        for (int i = 0; i < sc->nbodies; i++) {
            free(sc->bodies[i].mesh);
            free(sc->bodies[i].initial_positions);
        }
    free(sc->bodies);
    free(sc->materials);
    free(sc->output_file);
    free(sc->path);
    free(sc->dir);
    free(sc->text);
    for (int i = 0; sc->inputs && i < sc->ninputs; i++)
        free(sc->inputs[i]);
    free(sc->inputs);
    memset(sc, 0, sizeof *sc);
}

/* ---------------------------------------------------------------- printing */

/* %.17g round-trips a double; libconfig needs a '.' or an exponent to read it as a float. */
static void print_float(FILE *f, double x)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", x);
    if (!strpbrk(buf, ".eEni"))
        strcat(buf, ".0");
    fputs(buf, f);
}

static void print_vec3(FILE *f, const double v[3])
{
    fputc('[', f);
    for (int k = 0; k < 3; k++) {
        if (k)
            fputs(", ", f);
        print_float(f, v[k]);
    }
    fputc(']', f);
}

static void print_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* Paths are printed absolute so the printed scene resolves them the same from anywhere. */
static void print_path(FILE *f, const char *path)
{
    char cwd[4096];
    if (path[0] != '/' && getcwd(cwd, sizeof cwd)) {
        char *p = sipd_path_join(cwd, path);
        if (p) {
            print_string(f, p);
            free(p);
            return;
        }
    }
    print_string(f, path);
}

static const char *tf(int b)
{
    return b ? "true" : "false";
}

static void print_box(FILE *f, const sipd_scene_box *b)
{
    fputs("box_min = ", f);
    print_vec3(f, b->box_min);
    fputs("; box_max = ", f);
    print_vec3(f, b->box_max);
    fputs(";", f);
}

void scene_print(FILE *f, const sipd_scene *sc)
{
    fputs("# sipd-run resolved scene", f);
    if (sc->path)
        fprintf(f, " (from %s)", sc->path);
    fputs(": every parameter, defaults filled in\n", f);

    fputs("time = {\n  dt = ", f);
    print_float(f, sc->dt);
    fprintf(f, ";\n  substeps = %d;\n  frames = %d;\n  quasistatic = %s;\n};\n", sc->substeps,
            sc->frames, tf(sc->quasistatic));

    fprintf(f, "solver = {\n  method = \"%s\";\n  sweep = \"%s\";\n  iterations = %d;\n",
            scene_method_name(sc->method), scene_sweep_name(sc->sweep), sc->iterations);
    fputs("  tolerance = ", f);
    print_float(f, sc->tolerance);
    fprintf(f, ";\n  line_search = \"%s\";\n  projection = \"%s\";\n  chebyshev = %s;\n",
            scene_line_search_name(sc->line_search), scene_projection_name(sc->projection),
            tf(sc->chebyshev));
    fputs("  chebyshev_rho = ", f);
    print_float(f, sc->chebyshev_rho);
    fputs(";\n  omega = ", f);
    print_float(f, sc->omega);
    fprintf(f, ";\n  strict = %s;\n  initial_guess = \"%s\";\n", tf(sc->strict),
            scene_initial_guess_name(sc->initial_guess));
    if (sc->method == SIPD_METHOD_NEWTON || sc->method == SIPD_METHOD_MIXED) {   /* (reloadable: see load_solver) */
        fprintf(f, "  linear = \"%s\";\n", sc->linear == SIPD_LINEAR_CHOLMOD ? "cholmod" : "pcg");
        if (sc->linear == SIPD_LINEAR_PCG) {
            fputs("  cg_tolerance = ", f);
            print_float(f, sc->cg_tolerance);
            fputs(";\n", f);
        }
    }
    if (scene_coarse_on(sc))   /* (as resolved: "auto" prints 2 where it is on; off, it reads back the same) */
        fprintf(f, "  coarse = { levels = %d; every = %d; size = %d; refresh = %d; basis = \"%s\"; };\n",
                sc->coarse_levels, sc->coarse_every, sc->coarse_size, sc->coarse_refresh,
                scene_coarse_basis_name(sc->coarse_basis));
    fputs("};\n", f);

    fprintf(f, "device = \"%s\";\n", scene_device_name(sc->device));
    if (sc->precision != SIPD_PRECISION_AUTO)   /* ("auto" unprinted: the parameters of a scene without
                                                   the key read as before it existed) */
        fprintf(f, "precision = \"%s\";\n", scene_precision_name(sc->precision));
    fputs("gravity = ", f);
    print_vec3(f, sc->gravity);
    fputs(";\n", f);

    fputs("materials = (\n", f);
    for (int i = 0; i < sc->nmaterials; i++) {
        const sipd_scene_material *m = &sc->materials[i];
        fputs("  { name = ", f);
        print_string(f, m->name);
        fprintf(f, "; model = \"%s\";\n    youngs = ", scene_model_name(m->model));
        print_float(f, m->youngs);
        fputs("; poisson = ", f);
        print_float(f, m->poisson);
        fputs("; density = ", f);
        print_float(f, m->density);
        fprintf(f, "; }%s\n", i + 1 < sc->nmaterials ? "," : "");
    }
    fputs(");\n", f);

    fputs("bodies = (\n", f);
    for (int i = 0; i < sc->nbodies; i++) {
        const sipd_scene_body *b = &sc->bodies[i];
        if (b->gen_shape == SIPD_GEN_ROD) {
            fputs("  { generate = { shape = \"rod\"; length = ", f);
            print_float(f, b->gen_length);
            fprintf(f, "; segments = %d; }", b->gen_segments);
        } else if (b->gen_shape == SIPD_GEN_CLOTH) {
            fputs("  { generate = { shape = \"cloth\"; size = [", f);
            print_float(f, b->gen_size[0]);
            fputs(", ", f);
            print_float(f, b->gen_size[1]);
            fprintf(f, "]; cells = [%d, %d]; }", b->gen_cells[0], b->gen_cells[1]);
        } else {
            fputs("  { mesh = ", f);
            print_path(f, b->mesh ? b->mesh : "");
        }
        if (b->elements != SIPD_ELEMENTS_AUTO) {   /* the kind keys only when used (older outputs unchanged) */
            static const char *const en[] = {"auto", "solid", "shell", "springs", "rod"};
            fprintf(f, ";\n    elements = \"%s\"", en[b->elements]);
        }
        if (b->elements == SIPD_ELEMENTS_SPRINGS || b->elements == SIPD_ELEMENTS_ROD || b->gen_shape == SIPD_GEN_ROD) {   /* radius used */
            fputs(";\n    radius = ", f);
            print_float(f, b->radius);
        }
        if (b->elements == SIPD_ELEMENTS_SHELL || b->gen_shape == SIPD_GEN_CLOTH || b->shell_keys) {
            fputs(";\n    thickness = ", f);
            print_float(f, b->thickness);
            if (b->bending_stiffness >= 0) {
                fputs(";\n    bending_stiffness = ", f);
                print_float(f, b->bending_stiffness);
            }
            if (b->bending != SIPD_BENDING_AUTO)   /* the default "auto" is not printed */
                fputs(b->bending == SIPD_BENDING_MIDEDGE ? ";\n    bending = \"midedge\"" : ";\n    bending = \"dihedral\"", f);
        }
        if (b->spring_k > 0) {
            fputs(";\n    spring_stiffness = ", f);
            print_float(f, b->spring_k);
        }
        fputs(";\n    material = ", f);
        print_string(f, b->material >= 0 && b->material < sc->nmaterials
                            ? sc->materials[b->material].name
                            : "");
        fputs(";\n    translate = ", f);
        print_vec3(f, b->translate);
        fputs(";\n    rotate_deg = ", f);
        print_vec3(f, b->rotate_deg);
        fputs(";\n    scale = ", f);
        print_float(f, b->scale);
        fputs(";\n    velocity = ", f);
        print_vec3(f, b->velocity);
        fputs(";\n    initial_stretch = ", f);
        print_vec3(f, b->initial_stretch);
        if (b->initial_positions) {
            fputs(";\n    initial_positions = ", f);
            print_path(f, b->initial_positions);
        }
        if (b->obstacle) {
            fputs(";\n    obstacle = true;\n    angular_velocity = ", f);
            print_vec3(f, b->angular_velocity);
            if (b->center_set) {
                fputs(";\n    center = ", f);
                print_vec3(f, b->center);
            }
        }
        fputs(";\n    pin = (", f);
        for (int j = 0; j < b->npin; j++) {
            fputs(j ? ",\n      { " : "\n      { ", f);
            print_box(f, &b->pin[j]);
            fputs(" }", f);
        }
        fputs(b->npin ? "\n    );\n    move = (" : ");\n    move = (", f);
        for (int j = 0; j < b->nmove; j++) {
            const sipd_scene_move *mv = &b->move[j];
            fputs(j ? ",\n      { " : "\n      { ", f);
            print_box(f, &mv->box);
            fputs("\n        velocity = ", f);
            print_vec3(f, mv->velocity);
            fputs("; angular_velocity = ", f);
            print_vec3(f, mv->angular_velocity);
            fputs("; center = ", f);
            print_vec3(f, mv->center);
            fputs("; }", f);
        }
        fprintf(f, "%s);\n  }%s\n", b->nmove ? "\n    " : "", i + 1 < sc->nbodies ? "," : "");
    }
    fputs(");\n", f);

    fprintf(f, "contact = {\n  enabled = %s;\n  dhat = ", tf(sc->contact));
    print_float(f, sc->dhat);
    fputs(";\n  stiffness = ", f);
    print_float(f, sc->contact_stiffness);
    fputs(";\n  friction = ", f);
    print_float(f, sc->friction);
    fputs(";\n  friction_velocity = ", f);
    print_float(f, sc->friction_velocity);
    fprintf(f, ";\n  self = %s;\n  detect_every = %d;\n  ccd = %s;\n", tf(sc->self_contact), sc->detect_every,
            tf(sc->ccd));
    if (sc->contact_thickness >= 0) {   /* only when set: the default prints nothing (older files) */
        fputs("  thickness = ", f);
        print_float(f, sc->contact_thickness);
        fputs(";\n", f);
    }
    if (sc->ground) {
        fputs("  ground = { height = ", f);
        print_float(f, sc->ground_height);
        fputs("; normal = ", f);
        print_vec3(f, sc->ground_normal);
        fputs("; };\n", f);
    }
    fputs("};\n", f);

    fputs("output = {\n  file = ", f);
    print_path(f, sc->output_file ? sc->output_file : "");
    fprintf(f, ";\n  every = %d;\n  compression = %d;\n  xdmf = %s;\n  checkpoint_every = %d;\n"
               "  checkpoint_seconds = ", sc->output_every, sc->compression, tf(sc->xdmf), sc->checkpoint_every);
    print_float(f, sc->checkpoint_seconds);
    fputs(";\n", f);
    if (sc->history_every == 1)
        fputs("  history = \"all\";\n", f);
    else if (sc->history_every == 0)
        fputs("  history = \"none\";\n", f);
    else
        fprintf(f, "  history = \"every %d\";\n", sc->history_every);
    if (sc->fields) {   /* only when given (older outputs unchanged) */
        int k, first = 1;
        fputs("  fields = [", f);
        for (k = 0; k < SIPD_FIELD_COUNT; k++)
            if (sc->fields & (1u << k)) {
                fprintf(f, "%s\"%s\"", first ? "" : ", ", field_names[k]);
                first = 0;
            }
        fputs("];\n", f);
    }
    fputs("};\n", f);
}
