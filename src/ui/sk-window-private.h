/* sk-window-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "sk-canvas.h"
#include "sk-chat-pane.h"
#include "sk-code-cell.h"
#include "skele.h"
#include "sk-input-cell.h"
#include "sk-output-cell.h"
#include "sk-problems-list.h"
#include "sk-step-list.h"
#include "sk-window.h"

G_BEGIN_DECLS

/* One window shows one open workflow, an SkWorkspace; sk-window.c binds it
 * to the widgets, sk-window-actions.c holds the window's actions and runs,
 * sk-window-open.c opening, recovery, saving elsewhere and closing. */
struct _SkWindow
{
  AdwApplicationWindow  parent_instance;

  /* Owned */
  GSettings            *settings;
  SkWorkspace          *workspace;
  /* The folder being opened, or that could not be opened. */
  GFile                *opening;
  GtkSelectionModel    *selection;
  GCancellable         *cancellable;
  GtkStringList        *agent_log;
  GPtrArray            *pending_run;
  SkNode               *watched_node;
  SkNode               *shown_node;
  char                 *last_toast;
  char                 *last_toast_action;
  /* The buffer of the code view that has the focus, whose own undo the
   * header's Undo and Redo then follow. */
  GSignalGroup         *code_buffer_signals;
  GSignalGroup         *code_view_signals;
  /* Step key → GString: what the step printed in this run, its tail. */
  GHashTable           *live_output;
  /* The chat of the open workflow (sk-window-chat.c). */
  SkChatSession        *chat_session;

  /* Template widgets */
  SkInputCell          *input_cell;
  SkOutputCell         *output_cell;
  SkCodeCell           *code_cell;
  AdwToastOverlay      *toast_overlay;
  AdwWindowTitle       *window_title;
  GtkButton            *run_button;
  GtkButton            *stop_button;
  GtkProgressBar       *progress_bar;
  GtkStack             *stack;
  AdwStatusPage        *error_page;
  GtkSpinner           *loading_spinner;
  GtkListBox           *recent_list;
  GtkPaned             *outer_paned;
  SkStepList           *step_list;
  GtkLabel             *step_title;
  GtkWidget            *step_properties_button;
  GtkMenuButton        *step_menu_button;
  GtkStack             *cells_stack;
  AdwLeaflet           *cells_leaflet;
  GtkWidget            *cells_switcher;
  GtkToggleButton      *task_toggle;
  GtkToggleButton      *result_toggle;
  GtkToggleButton      *code_toggle;
  GtkPaned             *main_paned;
  SkCanvas             *canvas;
  GtkButton            *zoom_button;
  GtkWidget            *canvas_hint;
  GtkPaned             *chat_paned;
  SkChatPane           *chat_pane;
  GtkToggleButton      *chat_button;

  /* The problems bar over the canvas (sk-window-problems.c) */
  GtkRevealer          *problems_revealer;
  GtkLabel             *problems_label;
  GtkMenuButton        *problems_button;
  SkProblemsList       *problems_list;
  guint                 problems_id;
  /* Python's check of the conditions' syntax: the last one started, by its
   * key, and the problems it found. */
  GCancellable         *conditions_cancellable;
  char                 *conditions_key;
  GPtrArray            *condition_problems;

  guint                 pending_generate : 1;
  /* Whether a picture of the workflow is being drawn for Export…. */
  guint                 exporting : 1;
  /* Whether this window told the user, in a dialog, how to set up a
   * coding agent. */
  guint                 agent_setup_shown : 1;
  /* The share of the height the cells take, kept when the window is
   * resized; the user changes it by dragging the divider. */
  double                cells_share;
  guint                 cells_switcher_id;
  guint                 paned_placing : 1;
  guint                 close_confirmed : 1;
};

static inline SkProject *
_sk_window_project (SkWindow *self)
{
  return self->workspace != NULL ? sk_workspace_get_project (self->workspace) : NULL;
}

static inline SkHistory *
_sk_window_history (SkWindow *self)
{
  return self->workspace != NULL ? sk_workspace_get_history (self->workspace) : NULL;
}

/* sk-window-chat.c */
void          _sk_window_chat_init            (SkWindow       *self);
void          _sk_window_chat_class_init      (GtkWidgetClass *widget_class);
void          _sk_window_chat_set_workspace   (SkWindow       *self,
                                               SkWorkspace    *workspace);
void          _sk_window_chat_dispose         (SkWindow       *self);

/* sk-window-problems.c */
void          _sk_window_problems_init        (SkWindow    *self,
                                               GtkOverlay  *overlay);
void          _sk_window_update_problems      (SkWindow    *self);
void          _sk_window_queue_problems       (SkWindow    *self);

/* sk-window.c */
void          _sk_window_set_workspace        (SkWindow    *self,
                                               SkWorkspace *workspace);
AdwToast     *_sk_window_add_toast            (SkWindow    *self,
                                               const char  *message,
                                               gboolean     offer_preferences);
void          _sk_window_add_undo_toast       (SkWindow    *self,
                                               const char  *message);
void          _sk_window_update_title         (SkWindow    *self);
void          _sk_window_update_actions       (SkWindow    *self);
void          _sk_window_show_properties      (SkWindow    *self,
                                               SkNode      *node);

/* sk-window-actions.c */
void          _sk_window_class_actions_init   (GtkWidgetClass *widget_class);
void          _sk_window_update_progress      (SkWindow    *self);
gboolean      _sk_window_check_permissions    (SkWindow    *self,
                                               GPtrArray   *nodes);
void          _sk_window_start_work           (SkWindow    *self,
                                               GPtrArray   *nodes,
                                               gboolean     generate);

/* sk-window-open.c */
void          _sk_window_show_error_page      (SkWindow    *self,
                                               const char  *message);
void          _sk_window_add_to_recent        (SkWindow    *self);
void          _sk_window_fill_recent_list     (SkWindow    *self);
void          _sk_window_recent_row_activated_cb (SkWindow      *self,
                                                  GtkListBoxRow *row);
void          _sk_window_choose_folder        (SkWindow    *self,
                                               const char  *title,
                                               const char  *accept,
                                               gboolean     create_folders,
                                               void       (*chosen) (SkWindow *self,
                                                                     GFile    *folder));
gboolean      _sk_window_confirm_close        (SkWindow    *self);
SkWindow     *_sk_window_open_in_window       (SkWindow    *self,
                                               GFile       *folder);

/* sk-window-export.c */
void          _sk_window_export_class_init    (GtkWidgetClass *widget_class);
void          _sk_window_export_to            (SkWindow    *self,
                                               const char  *format,
                                               GFile       *file);
void          _sk_window_import_into          (SkWindow    *self,
                                               GFile       *source,
                                               GFile       *folder);

/* The widget tests reach the window's parts through these. */
SkCanvas     *_sk_window_get_canvas           (SkWindow    *self);
SkHistory    *_sk_window_get_history          (SkWindow    *self);
SkWorkspace  *_sk_window_get_workspace        (SkWindow    *self);
SkInputCell  *_sk_window_get_input_cell       (SkWindow    *self);
SkOutputCell *_sk_window_get_output_cell      (SkWindow    *self);
SkCodeCell   *_sk_window_get_code_cell        (SkWindow    *self);
SkStepList   *_sk_window_get_step_list        (SkWindow    *self);
gboolean      _sk_window_is_running           (SkWindow    *self);
gboolean      _sk_window_get_action_enabled   (SkWindow    *self,
                                               const char  *name);
void          _sk_window_save_as              (SkWindow    *self,
                                               GFile       *folder);
/* The message of the last toast shown, even one still waiting its turn. */
const char   *_sk_window_get_last_toast       (SkWindow    *self);
/* The action of the last toast's button, such as "app.preferences". */
const char   *_sk_window_get_last_toast_action (SkWindow   *self);

G_END_DECLS
