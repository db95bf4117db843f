/* sk-window.c — temporary skeleton, replaced by the real window. */
#include "config.h"
#include "sk-window.h"
struct _SkWindow { AdwApplicationWindow parent_instance; GFile *folder; SkProject *project; };
G_DEFINE_FINAL_TYPE (SkWindow, sk_window, ADW_TYPE_APPLICATION_WINDOW)
static void sk_window_class_init (SkWindowClass *klass) { gtk_widget_class_set_template_from_resource (GTK_WIDGET_CLASS (klass), "/io/github/skelecode/SkeleCode/sk-window.ui"); }
static void sk_window_init (SkWindow *self) { gtk_widget_init_template (GTK_WIDGET (self)); }
SkWindow *sk_window_new (SkApplication *application) { return g_object_new (SK_TYPE_WINDOW, "application", application, NULL); }
GFile *sk_window_get_folder (SkWindow *self) { return self->folder; }
SkProject *sk_window_get_project (SkWindow *self) { return self->project; }
void sk_window_open (SkWindow *self, GFile *folder, gboolean create) { g_set_object (&self->folder, folder); }
void sk_window_choose_new (SkWindow *self) { }
void sk_window_choose_open (SkWindow *self) { }
void sk_window_show_toast (SkWindow *self, const char *message) { }
