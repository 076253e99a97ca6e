// cairo's, pango's and GObject's functions as the executable calls them, each forwarded to the
// library's own, looked up on its first call (CGraphics.h says why).
#include "CGraphics.h"

#include <cairo.h>
#include <dlfcn.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <stdlib.h>

/// The library that needs all the others: dlsym on its handle searches its dependencies too.
static const char kg_library[] = "libpangocairo-1.0.so.0";
static const char kg_package[] = "libpangocairo-1.0-0";
static void *kg_handle;
static char kg_error[512];

const char *kiosk_graphics_load(void) {
    if (__atomic_load_n(&kg_handle, __ATOMIC_ACQUIRE) != NULL) return NULL;
    // Concurrent calls both dlopen: the second waits for the loader's lock, then gets the same
    // handle. RTLD_NOW: every symbol of the libraries bound here, on this thread, not at the
    // first calls on the drawing and fonts' threads.
    void *handle = dlopen(kg_library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(kg_error, sizeof kg_error, "%s cannot be loaded (%s) — install Debian's %s (apt install %s)",
                 kg_library, reason != NULL ? reason : "no reason given", kg_package, kg_package);
        return kg_error;
    }
    __atomic_store_n(&kg_handle, handle, __ATOMIC_RELEASE);
    return NULL;
}

static void *kg_fontconfig;

void kiosk_fontconfig_open(void) {
    if (__atomic_load_n(&kg_fontconfig, __ATOMIC_ACQUIRE) != NULL) return;
    void *handle = dlopen("libfontconfig.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (handle != NULL) __atomic_store_n(&kg_fontconfig, handle, __ATOMIC_RELEASE);
}

/// FcInit's work less the one part no font match reads: FcInit also parses every file of
/// fontconfig's template folder (/usr/share/fontconfig/conf.avail, 42 files on Debian 12) for
/// the descriptions `fc-conflist` prints, about 40 % of its instructions. The configuration is
/// read and the fonts loaded as FcInit does (FONTCONFIG_FILE or fonts.conf with conf.d), then
/// made the current one, which FcInit (pango's, or the fallback below) then returns at once.
/// Anything unusual (no configuration, no cache folder) is left to FcInit, which handles it.
static int kg_fontconfig_load(void *handle) {
    FcConfig *(*create)(void) = (FcConfig * (*)(void)) dlsym(handle, "FcConfigCreate");
    FcBool (*parse)(FcConfig *, const FcChar8 *, FcBool) =
        (FcBool(*)(FcConfig *, const FcChar8 *, FcBool))dlsym(handle, "FcConfigParseAndLoad");
    FcStrList *(*cache_dirs)(const FcConfig *) = (FcStrList * (*)(const FcConfig *)) dlsym(handle, "FcConfigGetCacheDirs");
    FcChar8 *(*next)(FcStrList *) = (FcChar8 * (*)(FcStrList *)) dlsym(handle, "FcStrListNext");
    void (*done)(FcStrList *) = (void (*)(FcStrList *))dlsym(handle, "FcStrListDone");
    FcBool (*set_current)(FcConfig *) = (FcBool(*)(FcConfig *))dlsym(handle, "FcConfigSetCurrent");
    void (*destroy)(FcConfig *) = (void (*)(FcConfig *))dlsym(handle, "FcConfigDestroy");
    if (!create || !parse || !cache_dirs || !next || !done || !set_current || !destroy) return 0;
    FcConfig *config = create();
    if (config == NULL) return 0;
    int loaded = 0;
    if (parse(config, NULL, FcTrue)) {
        FcStrList *dirs = cache_dirs(config);
        int any = dirs != NULL && next(dirs) != NULL;
        if (dirs != NULL) done(dirs);
        // Builds the font list (from the caches) and takes a reference of its own.
        loaded = any && set_current(config);
    }
    destroy(config);
    return loaded;
}

void kiosk_fontconfig_init(void) {
    kiosk_fontconfig_open();
    void *handle = __atomic_load_n(&kg_fontconfig, __ATOMIC_ACQUIRE);
    if (handle == NULL) return;
    if (kg_fontconfig_load(handle)) return;
    int (*init)(void) = (int (*)(void))dlsym(handle, "FcInit");
    if (init != NULL) (void)init();
}

/// The address of `name` in the loaded libraries. A kiosk that cannot draw cannot go on: a
/// missing library or function ends the process with the message and the fix, as the dynamic
/// loader would have at exec.
static void *kg_function(const char *name) {
    const char *error = kiosk_graphics_load();
    if (error != NULL) {
        fprintf(stderr, "KioskCards: %s\n", error);
        exit(1);
    }
    void *address = dlsym(__atomic_load_n(&kg_handle, __ATOMIC_ACQUIRE), name);
    if (address == NULL) {
        fprintf(stderr, "KioskCards: %s has no function '%s' — it is too old for KioskCards: upgrade Debian's %s\n",
                kg_library, name, kg_package);
        exit(1);
    }
    return address;
}

// One definition per function: `name` with its header's parameters, calling the library's
// function through a pointer looked up once (racing first calls look it up twice, harmlessly).
#define KG_POINTER(name)                                                                         \
    static __typeof__(&name) kg_##name;                                                          \
    __typeof__(&name) fn = __atomic_load_n(&kg_##name, __ATOMIC_ACQUIRE);                        \
    if (fn == NULL) {                                                                            \
        fn = (__typeof__(&name))kg_function(#name);                                              \
        __atomic_store_n(&kg_##name, fn, __ATOMIC_RELEASE);                                      \
    }
#define KG_CALL(type, name, parameters, arguments)                                               \
    __attribute__((visibility("hidden"))) type name parameters {                                 \
        KG_POINTER(name)                                                                         \
        return fn arguments;                                                                     \
    }
#define KG_VOID(name, parameters, arguments)                                                     \
    __attribute__((visibility("hidden"))) void name parameters {                                 \
        KG_POINTER(name)                                                                         \
        fn arguments;                                                                            \
    }

// cairo (libcairo.so.2)
KG_VOID(cairo_arc,
        (cairo_t *cr, double xc, double yc, double radius, double angle1, double angle2),
        (cr, xc, yc, radius, angle1, angle2))
KG_VOID(cairo_clip, (cairo_t *cr), (cr))
KG_VOID(cairo_close_path, (cairo_t *cr), (cr))
KG_CALL(cairo_rectangle_list_t *, cairo_copy_clip_rectangle_list, (cairo_t *cr), (cr))
KG_CALL(cairo_t *, cairo_create, (cairo_surface_t *target), (target))
KG_VOID(cairo_destroy, (cairo_t *cr), (cr))
KG_VOID(cairo_fill, (cairo_t *cr), (cr))
KG_VOID(cairo_fill_preserve, (cairo_t *cr), (cr))
KG_CALL(cairo_font_options_t *, cairo_font_options_create, (void), ())
KG_VOID(cairo_font_options_destroy, (cairo_font_options_t *options), (options))
KG_VOID(cairo_font_options_set_antialias,
        (cairo_font_options_t *options, cairo_antialias_t antialias),
        (options, antialias))
KG_VOID(cairo_font_options_set_hint_metrics,
        (cairo_font_options_t *options, cairo_hint_metrics_t hint_metrics),
        (options, hint_metrics))
KG_VOID(cairo_font_options_set_hint_style,
        (cairo_font_options_t *options, cairo_hint_style_t hint_style),
        (options, hint_style))
KG_CALL(cairo_surface_t *, cairo_get_group_target, (cairo_t *cr), (cr))
KG_VOID(cairo_get_matrix, (cairo_t *cr, cairo_matrix_t *matrix), (cr, matrix))
KG_CALL(cairo_operator_t, cairo_get_operator, (cairo_t *cr), (cr))
KG_CALL(cairo_pattern_t *, cairo_get_source, (cairo_t *cr), (cr))
KG_CALL(cairo_surface_t *, cairo_get_target, (cairo_t *cr), (cr))
KG_VOID(cairo_identity_matrix, (cairo_t *cr), (cr))
KG_CALL(cairo_surface_t *, cairo_image_surface_create,
        (cairo_format_t format, int width, int height),
        (format, width, height))
KG_CALL(cairo_surface_t *, cairo_image_surface_create_for_data,
        (unsigned char *data, cairo_format_t format, int width, int height, int stride),
        (data, format, width, height, stride))
KG_CALL(cairo_surface_t *, cairo_image_surface_create_from_png, (const char *filename), (filename))
KG_CALL(cairo_surface_t *, cairo_image_surface_create_from_png_stream,
        (cairo_read_func_t read_func, void *closure),
        (read_func, closure))
KG_CALL(unsigned char *, cairo_image_surface_get_data, (cairo_surface_t *surface), (surface))
KG_CALL(cairo_format_t, cairo_image_surface_get_format, (cairo_surface_t *surface), (surface))
KG_CALL(int, cairo_image_surface_get_height, (cairo_surface_t *surface), (surface))
KG_CALL(int, cairo_image_surface_get_stride, (cairo_surface_t *surface), (surface))
KG_CALL(int, cairo_image_surface_get_width, (cairo_surface_t *surface), (surface))
KG_VOID(cairo_line_to, (cairo_t *cr, double x, double y), (cr, x, y))
KG_VOID(cairo_mask_surface,
        (cairo_t *cr, cairo_surface_t *surface, double surface_x, double surface_y),
        (cr, surface, surface_x, surface_y))
KG_VOID(cairo_move_to, (cairo_t *cr, double x, double y), (cr, x, y))
KG_VOID(cairo_new_path, (cairo_t *cr), (cr))
KG_VOID(cairo_new_sub_path, (cairo_t *cr), (cr))
KG_VOID(cairo_paint, (cairo_t *cr), (cr))
KG_VOID(cairo_paint_with_alpha, (cairo_t *cr, double alpha), (cr, alpha))
KG_VOID(cairo_pattern_add_color_stop_rgba,
        (cairo_pattern_t *pattern, double offset, double red, double green, double blue, double alpha),
        (pattern, offset, red, green, blue, alpha))
KG_CALL(cairo_pattern_t *, cairo_pattern_create_linear,
        (double x0, double y0, double x1, double y1),
        (x0, y0, x1, y1))
KG_VOID(cairo_pattern_destroy, (cairo_pattern_t *pattern), (pattern))
KG_VOID(cairo_pattern_set_filter, (cairo_pattern_t *pattern, cairo_filter_t filter), (pattern, filter))
KG_VOID(cairo_pop_group_to_source, (cairo_t *cr), (cr))
KG_VOID(cairo_push_group, (cairo_t *cr), (cr))
KG_VOID(cairo_rectangle,
        (cairo_t *cr, double x, double y, double width, double height),
        (cr, x, y, width, height))
KG_VOID(cairo_rectangle_list_destroy, (cairo_rectangle_list_t *rectangle_list), (rectangle_list))
KG_VOID(cairo_restore, (cairo_t *cr), (cr))
KG_VOID(cairo_rotate, (cairo_t *cr, double angle), (cr, angle))
KG_VOID(cairo_save, (cairo_t *cr), (cr))
KG_VOID(cairo_scale, (cairo_t *cr, double sx, double sy), (cr, sx, sy))
KG_VOID(cairo_set_antialias, (cairo_t *cr, cairo_antialias_t antialias), (cr, antialias))
KG_VOID(cairo_set_line_cap, (cairo_t *cr, cairo_line_cap_t line_cap), (cr, line_cap))
KG_VOID(cairo_set_line_join, (cairo_t *cr, cairo_line_join_t line_join), (cr, line_join))
KG_VOID(cairo_set_line_width, (cairo_t *cr, double width), (cr, width))
KG_VOID(cairo_set_matrix, (cairo_t *cr, const cairo_matrix_t *matrix), (cr, matrix))
KG_VOID(cairo_set_operator, (cairo_t *cr, cairo_operator_t op), (cr, op))
KG_VOID(cairo_set_source, (cairo_t *cr, cairo_pattern_t *source), (cr, source))
KG_VOID(cairo_set_source_rgb, (cairo_t *cr, double red, double green, double blue), (cr, red, green, blue))
KG_VOID(cairo_set_source_rgba,
        (cairo_t *cr, double red, double green, double blue, double alpha),
        (cr, red, green, blue, alpha))
KG_VOID(cairo_set_source_surface,
        (cairo_t *cr, cairo_surface_t *surface, double x, double y),
        (cr, surface, x, y))
KG_CALL(const char *, cairo_status_to_string, (cairo_status_t status), (status))
KG_VOID(cairo_stroke, (cairo_t *cr), (cr))
KG_VOID(cairo_surface_destroy, (cairo_surface_t *surface), (surface))
KG_VOID(cairo_surface_flush, (cairo_surface_t *surface), (surface))
KG_CALL(cairo_surface_type_t, cairo_surface_get_type, (cairo_surface_t *surface), (surface))
KG_VOID(cairo_surface_mark_dirty, (cairo_surface_t *surface), (surface))
KG_VOID(cairo_surface_mark_dirty_rectangle,
        (cairo_surface_t *surface, int x, int y, int width, int height),
        (surface, x, y, width, height))
KG_CALL(cairo_status_t, cairo_surface_status, (cairo_surface_t *surface), (surface))
KG_CALL(cairo_status_t, cairo_surface_write_to_png,
        (cairo_surface_t *surface, const char *filename),
        (surface, filename))
KG_CALL(cairo_status_t, cairo_surface_write_to_png_stream,
        (cairo_surface_t *surface, cairo_write_func_t write_func, void *closure),
        (surface, write_func, closure))
KG_VOID(cairo_translate, (cairo_t *cr, double tx, double ty), (cr, tx, ty))
KG_VOID(cairo_user_to_device, (cairo_t *cr, double *x, double *y), (cr, x, y))
KG_VOID(cairo_user_to_device_distance, (cairo_t *cr, double *dx, double *dy), (cr, dx, dy))
KG_CALL(const char*, cairo_version_string, (void), ())

// pango (libpango-1.0.so.0)
KG_VOID(pango_context_set_base_dir, (PangoContext *context, PangoDirection direction), (context, direction))
KG_VOID(pango_context_set_language, (PangoContext *context, PangoLanguage *language), (context, language))
KG_VOID(pango_context_set_round_glyph_positions,
        (PangoContext *context, gboolean round_positions),
        (context, round_positions))
KG_VOID(pango_font_description_free, (PangoFontDescription *desc), (desc))
KG_CALL(PangoFontDescription *, pango_font_description_from_string, (const char *str), (str))
KG_VOID(pango_font_description_set_absolute_size, (PangoFontDescription *desc, double size), (desc, size))
KG_VOID(pango_font_description_set_weight, (PangoFontDescription *desc, PangoWeight weight), (desc, weight))
KG_CALL(PangoContext *, pango_font_map_create_context, (PangoFontMap *fontmap), (fontmap))
KG_CALL(PangoLanguage *, pango_language_from_string, (const char *language), (language))
KG_VOID(pango_layout_context_changed, (PangoLayout *layout), (layout))
KG_CALL(PangoContext *, pango_layout_get_context, (PangoLayout *layout), (layout))
KG_VOID(pango_layout_get_extents,
        (PangoLayout *layout, PangoRectangle *ink_rect, PangoRectangle *logical_rect),
        (layout, ink_rect, logical_rect))
KG_CALL(PangoLayoutLine *, pango_layout_get_line_readonly, (PangoLayout *layout, int line), (layout, line))
KG_CALL(int, pango_layout_get_unknown_glyphs_count, (PangoLayout *layout), (layout))
KG_CALL(gboolean, pango_layout_is_ellipsized, (PangoLayout *layout), (layout))
KG_CALL(PangoLayout *, pango_layout_new, (PangoContext *context), (context))
KG_VOID(pango_layout_set_alignment, (PangoLayout *layout, PangoAlignment alignment), (layout, alignment))
KG_VOID(pango_layout_set_auto_dir, (PangoLayout *layout, gboolean auto_dir), (layout, auto_dir))
KG_VOID(pango_layout_set_ellipsize, (PangoLayout *layout, PangoEllipsizeMode ellipsize), (layout, ellipsize))
KG_VOID(pango_layout_set_font_description,
        (PangoLayout *layout, const PangoFontDescription *desc),
        (layout, desc))
KG_VOID(pango_layout_set_height, (PangoLayout *layout, int height), (layout, height))
KG_VOID(pango_layout_set_text, (PangoLayout *layout, const char *text, int length), (layout, text, length))
KG_VOID(pango_layout_set_width, (PangoLayout *layout, int width), (layout, width))
KG_VOID(pango_layout_set_wrap, (PangoLayout *layout, PangoWrapMode wrap), (layout, wrap))
KG_CALL(const char *, pango_version_string, (void), ())

// pango on cairo (libpangocairo-1.0.so.0)
KG_VOID(pango_cairo_context_set_font_options,
        (PangoContext *context, const cairo_font_options_t *options),
        (context, options))
KG_CALL(PangoLayout *, pango_cairo_create_layout, (cairo_t *cr), (cr))
KG_CALL(PangoFontMap *, pango_cairo_font_map_get_default, (void), ())
KG_CALL(PangoFontMap *, pango_cairo_font_map_new, (void), ())
KG_VOID(pango_cairo_font_map_set_default, (PangoCairoFontMap *fontmap), (fontmap))
KG_VOID(pango_cairo_show_layout, (cairo_t *cr, PangoLayout *layout), (cr, layout))
KG_VOID(pango_cairo_update_layout, (cairo_t *cr, PangoLayout *layout), (cr, layout))

// GObject (libgobject-2.0.so.0)
KG_VOID(g_object_unref, (gpointer object), (object))
