/* sk-canvas.c — temporary skeleton, replaced by the real canvas. */
#include "config.h"
#include "sk-canvas.h"
struct _SkCanvas { GtkWidget parent_instance; SkProject *project; SkHistory *history; };
G_DEFINE_FINAL_TYPE (SkCanvas, sk_canvas, GTK_TYPE_WIDGET)
static void sk_canvas_class_init (SkCanvasClass *klass) { }
static void sk_canvas_init (SkCanvas *self) { }
GtkWidget *sk_canvas_new (void) { return g_object_new (SK_TYPE_CANVAS, NULL); }
SkProject *sk_canvas_get_project (SkCanvas *self) { return self->project; }
void sk_canvas_set_project (SkCanvas *self, SkProject *project) { g_set_object (&self->project, project); }
SkHistory *sk_canvas_get_history (SkCanvas *self) { return self->history; }
void sk_canvas_set_history (SkCanvas *self, SkHistory *history) { g_set_object (&self->history, history); }
SkNode *sk_canvas_get_selected_node (SkCanvas *self) { return NULL; }
void sk_canvas_select_node (SkCanvas *self, SkNode *node) { }
GPtrArray *sk_canvas_get_selection (SkCanvas *self) { return g_ptr_array_new (); }
double sk_canvas_get_zoom (SkCanvas *self) { return 1; }
void sk_canvas_set_zoom (SkCanvas *self, double zoom) { }
void sk_canvas_scroll_to_node (SkCanvas *self, SkNode *node) { }
