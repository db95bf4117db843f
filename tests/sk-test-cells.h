/* sk-test-cells.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the tests of the input, output and code cells share.
 */

#pragma once

#include <adwaita.h>

#include "sk-project.h"
#include "sk-test-util.h"

G_BEGIN_DECLS

typedef struct
{
  char      *dir;
  GFile     *folder;
  SkProject *project;
  SkNode    *a;
  SkNode    *b;
  char      *outside;
} Fixture;

gboolean     sk_test_cells_init (int            *argc,
                                 char         ***argv);

void         fixture_setup      (Fixture        *fixture,
                                 gconstpointer   data);
void         fixture_teardown   (Fixture        *fixture,
                                 gconstpointer   data);
char        *node_path          (Fixture        *fixture,
                                 SkNode         *node,
                                 const char     *name);

void         count_cb           (guint          *count);
void         message_cb         (GtkWidget      *cell,
                                 const char     *text,
                                 GPtrArray      *messages);

GtkWidget   *present            (GtkWidget      *cell);
void         dismiss            (GtkWidget      *window,
                                 GtkWidget      *cell);
gpointer     child              (GtkWidget      *cell,
                                 const char     *name);
const char  *page               (GtkWidget      *cell,
                                 const char     *stack);
const char  *label              (GtkWidget      *cell,
                                 const char     *name);
gboolean     shown              (GtkWidget      *cell,
                                 const char     *name);
char        *buffer_text        (GtkTextBuffer  *buffer);
gboolean     send_key           (GtkWidget      *window,
                                 guint           keyval,
                                 GdkModifierType state);
void         type_text          (GtkTextView    *view,
                                 const char     *text);
void         wait_msec          (guint           msec);
void         add_focus_canvas_action (GtkWidget *window,
                                      guint     *count);

G_END_DECLS
