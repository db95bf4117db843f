/* sk-canvas-paint.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-canvas"

#include "config.h"

#include <math.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sk-canvas-private.h"

/* Painting, in layers: background and dot grid, the edges, the
 * conditions on the edges and what flowed along them, and the steps, with
 * a plainer level of detail when zoomed out, all kept in tiles across
 * frames (see "Tiles" below); over them, drawn in each frame, the steps
 * being dragged, the segments that show steps at work, the connection
 * being made or selected, a chat's proposal, the rubber band, badges and
 * buttons.
 *
 * The levels of detail, by zoom: from DETAIL_MIN_ZOOM a step is a box with
 * its name on up to two lines and its state, from TASK_MIN_ZOOM also the
 * first line of its task and, on the selected or hovered step, a run
 * button. Below DETAIL_MIN_ZOOM it is a box coloured by its state with its
 * name over it in a font of constant size on screen, for as many steps as
 * there is room for; below NAME_MIN_ZOOM, only the coloured box. */

#define NODE_W SK_CANVAS_NODE_WIDTH
#define NODE_H SK_CANVAS_NODE_HEIGHT
#define NODE_RADIUS 10.0
#define RING_GAP 4.0
#define RING_WIDTH 3.0
#define STRIPE_WIDTH 6.0
#define LABEL_PAD 10.0
#define LABEL_PAD_END 8.0
#define TEXT_WIDTH (NODE_W - STRIPE_WIDTH - LABEL_PAD - LABEL_PAD_END)
#define TEXT_MARGIN 5.0
#define CURVE_MIN_ZOOM 0.4
#define DETAIL_MIN_ZOOM 0.55
#define FLOW_MIN_ZOOM 0.6
#define TASK_MIN_ZOOM 0.8
#define NAME_MIN_ZOOM 0.04
#define NAME_TWO_LINES_ZOOM 0.3
#define NAME_MIN_WIDTH 64.0
#define NAME_MAX_WIDTH 160.0
#define BADGE_RADIUS 8.0
#define RUN_BUTTON_RADIUS 11.0
#define EDGE_SAMPLES 32
#define EDGE_END_GAP 2.0
#define EDGE_MIN_BEND 40.0
#define ERROR_COLOR 0xe01b24
/* A gate that waits asks for the person, as a warning does. */
#define GATE_COLOR 0xff7800
#define GATE_OUTLINE_WIDTH 3.5
#define DESTRUCTIVE_COLOR 0xc01c28
#define ACCENT_COLOR 0x3584e4
#define ACCENT_COLOR_DARK 0x78aeed
/* How strongly a rejected new step and its connections are drawn. */
#define REJECTED_ALPHA 0.35f
#define BADGE_HEIGHT 16.0
/* New steps without a place are shown in rows this far apart, as far as
 * the changeset puts a new step below its priors. */
#define PROPOSAL_ROW_DY 150.0
/* A condition on a connection is cut to this many characters, so that a
 * long expression does not cover its neighbours. */
#define CONDITION_MAX_CHARS 24

/* The kinds of step that a badge on the box's bottom left names. */
typedef enum
{
  CONTROL_APPROVAL = 1 << 0,
  CONTROL_FOREACH  = 1 << 1,
  CONTROL_WORKFLOW = 1 << 2,
} ControlKind;

static gboolean
is_dark (void)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ());
}

static GdkRGBA
rgba (guint32 hex,
      float   alpha)
{
  GdkRGBA color = {
    ((hex >> 16) & 0xff) / 255.f,
    ((hex >> 8) & 0xff) / 255.f,
    (hex & 0xff) / 255.f,
    alpha,
  };

  return color;
}

/* Lines and text in the accent colour, lighter on a dark background as
 * libadwaita's accent_color is. */
static GdkRGBA
accent_color (float alpha)
{
  return rgba (is_dark () ? ACCENT_COLOR_DARK : ACCENT_COLOR, alpha);
}

/* The palette follows the GNOME human interface guidelines' named colours,
 * since GTK 4.8 offers no way to read a CSS colour for drawn content. */
static GdkRGBA
state_color (SkNodeState state)
{
  switch (state)
    {
    case SK_NODE_STATE_STALE:
      return rgba (0xe5a50a, 1);
    case SK_NODE_STATE_QUEUED:
      return rgba (0x99c1f1, 1);
    case SK_NODE_STATE_RUNNING:
      return rgba (0x3584e4, 1);
    case SK_NODE_STATE_WRITING_CODE:
      return rgba (0x9141ac, 1);
    case SK_NODE_STATE_SUCCEEDED:
      return rgba (0x2ec27e, 1);
    case SK_NODE_STATE_FAILED:
      return rgba (0xe01b24, 1);
    case SK_NODE_STATE_SKIPPED:
    case SK_NODE_STATE_CANCELLED:
      return rgba (0x9a9996, 1);
    case SK_NODE_STATE_UP_TO_DATE:
      return rgba (0x8ff0a4, 1);
    /* A gate that waits asks for the person, as a warning does. */
    case SK_NODE_STATE_AWAITING_APPROVAL:
      return rgba (GATE_COLOR, 1);
    /* A step without code is no error, only not written yet. */
    case SK_NODE_STATE_NO_CODE:
    case SK_NODE_STATE_IDLE:
    default:
      return is_dark () ? rgba (0x5e5c64, 1) : rgba (0xc0bfbc, 1);
    }
}

/* The workflow's geometry or what the tiles show of it changed: every tile
 * is drawn again, and the grid and the names zoomed out are made again. */
void
_sk_canvas_invalidate_edges (SkCanvas *self)
{
  g_clear_pointer (&self->proposal_cache, gsk_render_node_unref);
  _sk_canvas_tiles_invalidate (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Labels: a few layouts per step, made when first drawn and kept until
 * their text or the font changes, and one per state shared by all steps. */

static PangoLayout *
new_layout (SkCanvas   *self,
            const char *text,
            gboolean    bold,
            gboolean    small,
            double      width)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), text);
  PangoAttrList *attrs = pango_attr_list_new ();

  if (bold)
    pango_attr_list_insert (attrs, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
  if (small)
    pango_attr_list_insert (attrs, pango_attr_scale_new (PANGO_SCALE_SMALL));
  pango_layout_set_attributes (layout, attrs);
  pango_layout_set_width (layout, (int) (width * PANGO_SCALE));
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  pango_attr_list_unref (attrs);

  return layout;
}

/* The name in the box, on up to two lines, so that most names are read
 * whole at 100 %. */
static PangoLayout *
item_layout (SkCanvas     *self,
             SkCanvasItem *item)
{
  if (item->layout == NULL)
    {
      item->layout = new_layout (self, sk_node_get_name (item->node), TRUE, FALSE, TEXT_WIDTH);
      pango_layout_set_wrap (item->layout, PANGO_WRAP_WORD_CHAR);
      pango_layout_set_height (item->layout, -2);
    }

  return item->layout;
}

/* The first line of the task, or %NULL when there is no task. */
static PangoLayout *
task_layout (SkCanvas     *self,
             SkCanvasItem *item)
{
  if (item->task_layout == NULL)
    {
      const char *task = sk_node_get_input_text (item->node);
      g_autofree char *first = NULL;
      const char *end;

      if (task == NULL)
        return NULL;
      while (g_ascii_isspace (*task))
        task++;
      if (*task == '\0')
        return NULL;
      end = strchr (task, '\n');
      first = end != NULL ? g_strndup (task, end - task) : g_strdup (task);
      item->task_layout = new_layout (self, g_strchomp (first), FALSE, TRUE, TEXT_WIDTH);
    }

  return item->task_layout;
}

/* The name over a step zoomed out, drawn unscaled, so its width is in
 * pixels on screen. It is laid out again only when the zoom changes its
 * width or number of lines. */
static PangoLayout *
label_layout (SkCanvas     *self,
              SkCanvasItem *item,
              double        width,
              int           lines)
{
  int pango_width = (int) (width * PANGO_SCALE);

  if (item->label_layout == NULL)
    {
      item->label_layout = new_layout (self, sk_node_get_name (item->node), FALSE, TRUE, width);
      pango_layout_set_wrap (item->label_layout, PANGO_WRAP_WORD_CHAR);
    }
  else if (pango_layout_get_width (item->label_layout) != pango_width)
    pango_layout_set_width (item->label_layout, pango_width);

  if (pango_layout_get_height (item->label_layout) != -lines)
    pango_layout_set_height (item->label_layout, -lines);

  return item->label_layout;
}

static PangoLayout *
flow_layout (SkCanvas     *self,
             SkCanvasItem *item)
{
  if (item->flow_text == NULL)
    return NULL;

  if (item->flow_layout == NULL)
    item->flow_layout = new_layout (self, item->flow_text, FALSE, TRUE, NODE_W);

  return item->flow_layout;
}

/* Control flow: a badge per step and a label per condition, laid out once
 * and laid out again only when what they show differs from the step's
 * control flow as drawn. Reading it is a few lookups in the step's JSON. */

static guint
control_kinds (SkNode *node)
{
  guint kinds = 0;

  if (sk_node_get_approval (node))
    kinds |= CONTROL_APPROVAL;
  if (sk_node_get_foreach (node, NULL, NULL))
    kinds |= CONTROL_FOREACH;
  if (sk_node_get_workflow (node) != NULL)
    kinds |= CONTROL_WORKFLOW;

  return kinds;
}

/* The badge of a gate, a for-each or a sub-workflow step, or %NULL for a
 * plain step. */
static PangoLayout *
control_layout (SkCanvas     *self,
                SkCanvasItem *item)
{
  guint kinds = control_kinds (item->node);

  if (kinds != item->control_kinds)
    {
      g_clear_object (&item->control_layout);
      item->control_kinds = kinds;
    }

  if (kinds != 0 && item->control_layout == NULL)
    {
      const char *names[4] = { NULL, };
      g_autofree char *text = NULL;
      guint n = 0;

      if (kinds & CONTROL_APPROVAL)
        names[n++] = C_("kind of step", "Approval");
      if (kinds & CONTROL_FOREACH)
        names[n++] = C_("kind of step", "For each");
      if (kinds & CONTROL_WORKFLOW)
        names[n++] = C_("kind of step", "Workflow");
      /* Translators: between the kinds of a step on its badge, as in
       * "Approval · For each" */
      text = g_strjoinv (_(" · "), (char **) names);
      item->control_layout = new_layout (self, text, TRUE, TRUE, NODE_W - 2 * LABEL_PAD);
    }

  return item->control_layout;
}

static void
condition_label_free (gpointer data)
{
  SkCanvasConditionLabel *label = data;

  g_free (label->condition);
  g_clear_object (&label->layout);
  g_free (label);
}

/* A condition as its label reads: the expression on one line, cut short
 * with an ellipsis, or "otherwise" for the default branch. */
static char *
condition_text (const char *condition)
{
  g_auto(GStrv) words = NULL;
  g_autoptr(GString) text = g_string_new (NULL);

  if (g_str_equal (condition, SK_CONTROL_FLOW_DEFAULT))
    return g_strdup (C_("condition on a connection", "otherwise"));

  words = g_strsplit_set (condition, " \t\r\n", -1);
  for (guint i = 0; words[i] != NULL; i++)
    {
      if (words[i][0] == '\0')
        continue;
      if (text->len > 0)
        g_string_append_c (text, ' ');
      g_string_append (text, words[i]);
    }

  if (g_utf8_strlen (text->str, -1) > CONDITION_MAX_CHARS)
    {
      g_autofree char *start = g_utf8_substring (text->str, 0, CONDITION_MAX_CHARS - 1);

      return g_strconcat (g_strchomp (start), "…", NULL);
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* The label of the condition on the connection from @prior_id to @to, or
 * %NULL when it has none. */
static PangoLayout *
condition_layout (SkCanvas     *self,
                  SkCanvasItem *to,
                  const char   *prior_id)
{
  const char *condition = sk_node_get_condition (to->node, prior_id);
  g_autofree char *text = NULL;
  PangoAttrList *attrs;
  SkCanvasConditionLabel *label;

  if (condition == NULL)
    {
      if (to->condition_labels != NULL)
        g_hash_table_remove (to->condition_labels, prior_id);
      return NULL;
    }

  if (to->condition_labels == NULL)
    to->condition_labels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, condition_label_free);

  label = g_hash_table_lookup (to->condition_labels, prior_id);
  if (label != NULL && g_str_equal (label->condition, condition))
    return label->layout;

  label = g_new0 (SkCanvasConditionLabel, 1);
  label->condition = g_strdup (condition);
  text = condition_text (condition);
  label->layout = new_layout (self, text, FALSE, TRUE, 0);
  pango_layout_set_width (label->layout, -1);

  /* An expression reads as code; the default branch as a word. */
  attrs = pango_attr_list_copy (pango_layout_get_attributes (label->layout));
  if (g_str_equal (condition, SK_CONTROL_FLOW_DEFAULT))
    pango_attr_list_insert (attrs, pango_attr_style_new (PANGO_STYLE_ITALIC));
  else
    pango_attr_list_insert (attrs, pango_attr_family_new ("monospace"));
  pango_layout_set_attributes (label->layout, attrs);
  pango_attr_list_unref (attrs);

  g_hash_table_replace (to->condition_labels, g_strdup (prior_id), label);

  return label->layout;
}

static void
clear_control_layouts (SkCanvasItem *item)
{
  g_clear_object (&item->control_layout);
  item->control_kinds = 0;
  g_clear_pointer (&item->condition_labels, g_hash_table_unref);
}

static PangoLayout *
state_layout (SkCanvas    *self,
              SkNodeState  state)
{
  if ((guint) state >= G_N_ELEMENTS (self->state_layouts))
    state = SK_NODE_STATE_IDLE;

  if (self->state_layouts[state] == NULL)
    self->state_layouts[state] = new_layout (self, sk_node_state_label (state), FALSE, TRUE, TEXT_WIDTH);

  return self->state_layouts[state];
}

static void proposal_free          (SkCanvasProposal *proposal);
static void proposal_clear_layouts (SkCanvasProposal *proposal);

void
_sk_canvas_clear_text_caches (SkCanvas *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (self->state_layouts); i++)
    g_clear_object (&self->state_layouts[i]);
  for (guint i = 0; i < self->items->len; i++)
    {
      SkCanvasItem *item = g_ptr_array_index (self->items, i);

      g_clear_object (&item->layout);
      g_clear_object (&item->task_layout);
      g_clear_object (&item->label_layout);
      g_clear_object (&item->flow_layout);
      clear_control_layouts (item);
    }
  if (self->proposal != NULL)
    proposal_clear_layouts (self->proposal);
}

void
_sk_canvas_item_clear_paint (SkCanvasItem *item)
{
  g_clear_object (&item->task_layout);
  g_clear_object (&item->label_layout);
  g_clear_object (&item->flow_layout);
  g_clear_pointer (&item->flow_text, g_free);
  clear_control_layouts (item);
}

static void
clear_problem_marks (SkCanvas *self)
{
  g_clear_pointer (&self->problem_nodes, g_hash_table_unref);
  g_clear_pointer (&self->problem_edges, g_hash_table_unref);
}

void
_sk_canvas_paint_dispose (SkCanvas *self)
{
  clear_problem_marks (self);
  g_clear_pointer (&self->proposal, proposal_free);
  g_clear_pointer (&self->proposal_cache, gsk_render_node_unref);
  g_clear_object (&self->changeset);
}

/* What flowed out of a step: known once it has run, from the files it
 * produced, which the step holds, and the size of its saved output, asked
 * of the disk when its state changes so that painting never waits for it. */

static gboolean
has_run (SkNodeState state)
{
  return state == SK_NODE_STATE_SUCCEEDED || state == SK_NODE_STATE_UP_TO_DATE;
}

static void
update_flow_text (SkCanvas     *self,
                  SkCanvasItem *item)
{
  const char * const *files = sk_node_get_output_files (item->node);
  guint n_files = files != NULL ? g_strv_length ((char **) files) : 0;
  g_autofree char *text = NULL;

  if (has_run (sk_node_get_state (item->node)))
    {
      g_autofree char *count = NULL;
      g_autofree char *size = NULL;

      if (n_files > 0)
        count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u file", "%u files", n_files), n_files);
      if (item->output_size > 0)
        size = g_format_size ((guint64) item->output_size);

      if (count != NULL && size != NULL)
        /* Translators: what a step passed on, such as "3 files · 12.1 kB" */
        text = g_strdup_printf (_("%s · %s"), count, size);
      else if (count != NULL)
        text = g_steal_pointer (&count);
      else
        text = g_steal_pointer (&size);
    }

  if (g_strcmp0 (text, item->flow_text) == 0)
    return;

  g_free (item->flow_text);
  item->flow_text = g_steal_pointer (&text);
  g_clear_object (&item->flow_layout);

  /* What flowed is drawn along the step's connections, in tiles that need
   * not hold the step. */
  _sk_canvas_tiles_drop (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

typedef struct
{
  GWeakRef  canvas;
  SkNode   *node;
} SizeQuery;

static void
size_query_free (SizeQuery *query)
{
  g_weak_ref_clear (&query->canvas);
  g_object_unref (query->node);
  g_free (query);
}

static void
output_size_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  SizeQuery *query = user_data;
  g_autoptr(GFileInfo) info = g_file_query_info_finish (G_FILE (object), result, NULL);
  g_autoptr(SkCanvas) self = g_weak_ref_get (&query->canvas);
  SkCanvasItem *item = self != NULL ? _sk_canvas_lookup_item (self, query->node) : NULL;

  if (item != NULL && info != NULL && has_run (sk_node_get_state (item->node)))
    {
      item->output_size = g_file_info_get_size (info);
      update_flow_text (self, item);
    }

  size_query_free (query);
}

static void
query_output_size (SkCanvas     *self,
                   SkCanvasItem *item)
{
  GFile *workflow_folder = self->project != NULL ? sk_project_get_folder (self->project) : NULL;
  g_autoptr(GFile) pickle = NULL;
  SizeQuery *query;

  if (workflow_folder == NULL)
    return;

  query = g_new0 (SizeQuery, 1);
  g_weak_ref_init (&query->canvas, self);
  query->node = g_object_ref (item->node);
  pickle = sk_step_folder_get_file (workflow_folder, sk_node_get_key (item->node), SK_STEP_FILE_PICKLE);
  g_file_query_info_async (pickle, G_FILE_ATTRIBUTE_STANDARD_SIZE, G_FILE_QUERY_INFO_NONE,
                           G_PRIORITY_LOW, NULL, output_size_cb, query);
}

/* Called by the canvas for every change of a step's property, and with
 * "state" when the step is added. */
void
_sk_canvas_item_changed (SkCanvas     *self,
                         SkCanvasItem *item,
                         const char   *property)
{
  /* A removed step's name is struck where it is drawn, which its text
   * and its task's line decide. */
  if (self->proposal != NULL &&
      (g_str_equal (property, "name") || g_str_equal (property, "input-text")))
    g_clear_pointer (&self->proposal_cache, gsk_render_node_unref);

  if (g_str_equal (property, "name"))
    {
      g_clear_object (&item->label_layout);
      if (self->tiles != NULL)
        self->tiles->names_serial++;
    }
  else if (g_str_equal (property, "input-text"))
    {
      g_clear_object (&item->task_layout);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
  else if (g_str_equal (property, "state"))
    {
      item->output_size = -1;
      if (has_run (sk_node_get_state (item->node)))
        query_output_size (self, item);
      update_flow_text (self, item);
    }
  else if (g_str_equal (property, "output-files"))
    update_flow_text (self, item);
  else if (g_str_equal (property, "priors"))
    g_clear_pointer (&item->condition_labels, g_hash_table_unref);
}

/* A hash of the step's control flow as drawn: its kind and the
 * conditions on its connections. */
static guint
flow_key (SkCanvasItem *item)
{
  const char * const *priors = sk_node_get_priors (item->node);
  guint key = control_kinds (item->node) + 1;

  for (guint j = 0; priors != NULL && priors[j] != NULL; j++)
    {
      const char *condition = sk_node_get_condition (item->node, priors[j]);

      key = key * 31 + (condition != NULL ? g_str_hash (condition) : 0);
    }

  return key;
}

/* Called for a step's #SkNode::changed, which also tells of changes to its
 * "skele" member that no property shows. A change of its kind or of a
 * condition is drawn outside its box, along connections, so it draws all
 * the tiles again; anything else only those that hold the step. */
void
_sk_canvas_node_changed (SkCanvas     *self,
                         SkCanvasItem *item)
{
  guint key = flow_key (item);

  item->serial++;
  if (key != item->flow_key)
    {
      item->flow_key = key;
      _sk_canvas_invalidate_edges (self);
    }
}

/* Problems */

static char *
edge_key (const char *prior,
          const char *node)
{
  return g_strconcat (prior, "\n", node, NULL);
}

static gboolean
node_has_problem (SkCanvas *self,
                  SkNode   *node)
{
  return self->problem_nodes != NULL &&
         g_hash_table_contains (self->problem_nodes, sk_node_get_id (node));
}

static gboolean
edge_has_problem (SkCanvas     *self,
                  SkCanvasItem *from,
                  SkCanvasItem *to)
{
  g_autofree char *key = NULL;

  if (self->problem_edges == NULL)
    return FALSE;

  key = edge_key (sk_node_get_id (from->node), sk_node_get_id (to->node));

  return g_hash_table_contains (self->problem_edges, key);
}

/**
 * sk_canvas_set_problem_marks:
 * @self: a #SkCanvas
 * @node_ids: (nullable) (array zero-terminated=1): the ids of the steps
 *   that have a problem
 * @edge_pairs: (nullable) (array zero-terminated=1): the connections that
 *   have a problem, as a flat list of ids: prior, step, prior, step, …
 *
 * Draws the steps and connections given in the error colour, with a
 * warning badge, in place of those marked before. %NULL or empty lists
 * clear the marks.
 */
void
sk_canvas_set_problem_marks (SkCanvas           *self,
                             const char * const *node_ids,
                             const char * const *edge_pairs)
{
  g_return_if_fail (SK_IS_CANVAS (self));

  clear_problem_marks (self);

  for (guint i = 0; node_ids != NULL && node_ids[i] != NULL; i++)
    {
      if (self->problem_nodes == NULL)
        self->problem_nodes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_add (self->problem_nodes, g_strdup (node_ids[i]));
    }

  for (guint i = 0; edge_pairs != NULL && edge_pairs[i] != NULL && edge_pairs[i + 1] != NULL; i += 2)
    {
      if (self->problem_edges == NULL)
        self->problem_edges = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_add (self->problem_edges, edge_key (edge_pairs[i], edge_pairs[i + 1]));
    }

  _sk_canvas_invalidate_edges (self);
}

/* Proposals: a chat's changeset drawn over the workflow. What it adds,
 * removes and changes is taken from the changeset's own list of changes
 * when it is set or changes, so that the picture shows what applying would
 * do. The steps of the workflow those marks belong to are looked up again
 * only after the workflow's steps or connections change. */

typedef enum
{
  MARK_ADDED,
  MARK_REMOVED,
  MARK_CHANGED,
} MarkKind;

typedef enum
{
  BADGE_NEW,
  BADGE_CHANGED,
  BADGE_NEW_TASK,
  BADGE_REMOVED,
  N_BADGES
} BadgeKind;

typedef struct
{
  char         *id;
  MarkKind      kind;
  gboolean      accepted;
  gboolean      task_changed;
  /* An added step's box, which it owns; for the others, the canvas's item
   * of the step, borrowed and valid only while the proposal is resolved. */
  SkCanvasItem *item;
} ProposalStep;

typedef struct
{
  char         *prior;
  char         *step;
  gboolean      added;
  gboolean      accepted;
  /* A connection the chat removes is crossed out; one that goes with a
   * removed step is not, since the step is struck already. */
  gboolean      crossed;
  SkCanvasItem *from;
  SkCanvasItem *to;
} ProposalEdge;

struct _SkCanvasProposal
{
  GPtrArray   *steps;
  GHashTable  *by_id;
  /* The connections the changes list, then, once resolved, those of the
   * workflow that go with its removed steps. */
  GArray      *edges;
  guint        n_listed_edges;
  /* The workflow's connections that the proposal draws instead: the item
   * of a step to a GPtrArray of the items of its priors. */
  GHashTable  *hidden;
  PangoLayout *badges[N_BADGES];
  gboolean     resolved;
};

static void
proposal_step_free (gpointer data)
{
  ProposalStep *step = data;

  if (step->kind == MARK_ADDED)
    {
      g_clear_object (&step->item->layout);
      _sk_canvas_item_clear_paint (step->item);
      g_clear_object (&step->item->node);
      g_free (step->item);
    }
  g_free (step->id);
  g_free (step);
}

static void
proposal_edge_clear (gpointer data)
{
  ProposalEdge *edge = data;

  g_free (edge->prior);
  g_free (edge->step);
}

static void
proposal_clear_layouts (SkCanvasProposal *proposal)
{
  for (guint i = 0; i < N_BADGES; i++)
    g_clear_object (&proposal->badges[i]);

  for (guint i = 0; i < proposal->steps->len; i++)
    {
      ProposalStep *step = g_ptr_array_index (proposal->steps, i);

      if (step->kind == MARK_ADDED)
        {
          g_clear_object (&step->item->layout);
          g_clear_object (&step->item->task_layout);
          g_clear_object (&step->item->label_layout);
        }
    }
}

static void
proposal_free (SkCanvasProposal *proposal)
{
  proposal_clear_layouts (proposal);
  g_ptr_array_unref (proposal->steps);
  g_hash_table_unref (proposal->by_id);
  g_array_unref (proposal->edges);
  g_hash_table_unref (proposal->hidden);
  g_free (proposal);
}

static ProposalStep *
proposal_mark (SkCanvasProposal *proposal,
               SkChangeset      *changeset,
               const char       *id,
               MarkKind          kind)
{
  ProposalStep *step = g_hash_table_lookup (proposal->by_id, id);

  if (step != NULL)
    return step;

  step = g_new0 (ProposalStep, 1);
  step->id = g_strdup (id);
  step->kind = kind;
  step->accepted = sk_changeset_get_step_accepted (changeset, id);
  g_ptr_array_add (proposal->steps, step);
  g_hash_table_insert (proposal->by_id, step->id, step);

  return step;
}

static gboolean
proposal_is_added (SkCanvasProposal *proposal,
                   const char       *id,
                   gboolean         *accepted)
{
  ProposalStep *step = g_hash_table_lookup (proposal->by_id, id);

  if (step == NULL || step->kind != MARK_ADDED)
    return FALSE;
  if (accepted != NULL)
    *accepted = step->accepted;

  return TRUE;
}

/* How many new steps without a place lead up to @step: its row below the
 * workflow. */
static guint
added_rank (SkCanvasProposal *proposal,
            GHashTable       *unplaced,
            GHashTable       *ranks,
            ProposalStep     *step,
            guint             depth)
{
  const char * const *priors = sk_node_get_priors (step->item->node);
  gpointer known = g_hash_table_lookup (ranks, step->id);
  guint rank = 0;

  if (known != NULL)
    return GPOINTER_TO_UINT (known) - 1;

  /* The chat's copy never has a cycle, but a picture is no reason to
   * recurse without end. */
  if (depth > proposal->steps->len)
    return 0;

  for (guint i = 0; priors[i] != NULL; i++)
    {
      ProposalStep *prior = g_hash_table_lookup (unplaced, priors[i]);

      if (prior != NULL)
        rank = MAX (rank, added_rank (proposal, unplaced, ranks, prior, depth + 1) + 1);
    }

  g_hash_table_insert (ranks, step->id, GUINT_TO_POINTER (rank + 1));

  return rank;
}

/* The changeset places a new step below its priors, but where no step has
 * a place yet, as in a draft, it leaves that to Arrange once accepted.
 * Until then such steps are shown in rows, by how many of them lead up to
 * each, centred below the workflow. */
static void
place_added_steps (SkCanvas         *self,
                   SkCanvasProposal *proposal)
{
  g_autoptr(GHashTable) unplaced = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) ranks = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GArray) row_sizes = g_array_new (FALSE, TRUE, sizeof (guint));
  g_autoptr(GArray) row_used = g_array_new (FALSE, TRUE, sizeof (guint));
  double top = 0, centre = 0;
  graphene_rect_t content;

  for (guint i = 0; i < proposal->steps->len; i++)
    {
      ProposalStep *step = g_ptr_array_index (proposal->steps, i);

      if (step->kind == MARK_ADDED &&
          !sk_node_get_position (step->item->node, &step->item->x, &step->item->y))
        g_hash_table_insert (unplaced, step->id, step);
    }

  if (g_hash_table_size (unplaced) == 0)
    return;

  if (_sk_canvas_content_rect (self, &content))
    {
      top = content.origin.y + content.size.height + PROPOSAL_ROW_DY - NODE_H / 2;
      centre = content.origin.x + content.size.width / 2;
    }

  for (guint i = 0; i < proposal->steps->len; i++)
    {
      ProposalStep *step = g_ptr_array_index (proposal->steps, i);
      guint rank;

      if (!g_hash_table_contains (unplaced, step->id) || step->kind != MARK_ADDED)
        continue;
      rank = added_rank (proposal, unplaced, ranks, step, 0);
      if (rank >= row_sizes->len)
        {
          g_array_set_size (row_sizes, rank + 1);
          g_array_set_size (row_used, rank + 1);
        }
      g_array_index (row_sizes, guint, rank)++;
    }

  for (guint i = 0; i < proposal->steps->len; i++)
    {
      ProposalStep *step = g_ptr_array_index (proposal->steps, i);
      guint rank, column;

      if (!g_hash_table_contains (unplaced, step->id) || step->kind != MARK_ADDED)
        continue;
      rank = GPOINTER_TO_UINT (g_hash_table_lookup (ranks, step->id)) - 1;
      column = g_array_index (row_used, guint, rank)++;
      step->item->x = centre + (column - (g_array_index (row_sizes, guint, rank) - 1) / 2.0) * SK_CANVAS_GRID_DX;
      step->item->y = top + rank * PROPOSAL_ROW_DY;
    }
}

static SkCanvasItem *
proposal_item (SkCanvas   *self,
               const char *id)
{
  ProposalStep *step = g_hash_table_lookup (self->proposal->by_id, id);

  if (step != NULL && step->kind == MARK_ADDED)
    return step->item;

  return _sk_canvas_lookup_item (self, sk_project_get_node (self->project, id));
}

static void
hide_edge (SkCanvasProposal *proposal,
           SkCanvasItem     *from,
           SkCanvasItem     *to)
{
  GPtrArray *priors = g_hash_table_lookup (proposal->hidden, to);

  if (priors == NULL)
    {
      priors = g_ptr_array_new ();
      g_hash_table_insert (proposal->hidden, to, priors);
    }
  g_ptr_array_add (priors, from);
}

static gboolean
edge_hidden (SkCanvas     *self,
             SkCanvasItem *from,
             SkCanvasItem *to)
{
  GPtrArray *priors;

  if (self->proposal == NULL)
    return FALSE;

  priors = g_hash_table_lookup (self->proposal->hidden, to);

  return priors != NULL && g_ptr_array_find (priors, from, NULL);
}

static gboolean
removal_accepted (SkCanvasProposal *proposal,
                  const char       *id)
{
  ProposalStep *step = g_hash_table_lookup (proposal->by_id, id);

  return step != NULL && step->kind == MARK_REMOVED && step->accepted;
}

/* Finds the canvas's items for the marks, and the connections of the
 * workflow that go with the steps the proposal removes. */
static void
proposal_resolve (SkCanvas *self)
{
  SkCanvasProposal *proposal = self->proposal;

  g_hash_table_remove_all (proposal->hidden);
  g_array_set_size (proposal->edges, proposal->n_listed_edges);

  for (guint i = 0; i < proposal->steps->len; i++)
    {
      ProposalStep *step = g_ptr_array_index (proposal->steps, i);

      if (step->kind != MARK_ADDED)
        step->item = _sk_canvas_lookup_item (self, sk_project_get_node (self->project, step->id));
    }

  for (guint i = 0; i < proposal->edges->len; i++)
    {
      ProposalEdge *edge = &g_array_index (proposal->edges, ProposalEdge, i);

      edge->from = proposal_item (self, edge->prior);
      edge->to = proposal_item (self, edge->step);
      if (edge->from != NULL && edge->to != NULL && !edge->added && edge->accepted)
        hide_edge (proposal, edge->from, edge->to);
    }

  for (guint i = 0; i < self->items->len; i++)
    {
      SkCanvasItem *to = g_ptr_array_index (self->items, i);
      const char * const *priors = sk_node_get_priors (to->node);
      gboolean to_removed = removal_accepted (proposal, sk_node_get_id (to->node));

      for (guint j = 0; priors != NULL && priors[j] != NULL; j++)
        {
          ProposalEdge edge = { NULL, };

          if (!to_removed && !removal_accepted (proposal, priors[j]))
            continue;

          edge.from = _sk_canvas_lookup_item (self, sk_project_get_node (self->project, priors[j]));
          if (edge.from == NULL)
            continue;
          edge.prior = g_strdup (priors[j]);
          edge.step = g_strdup (sk_node_get_id (to->node));
          edge.to = to;
          edge.accepted = TRUE;
          g_array_append_val (proposal->edges, edge);
          hide_edge (proposal, edge.from, to);
        }
    }

  proposal->resolved = TRUE;
}

/* Works out the marks from the changeset's list of changes. */
static void
proposal_rebuild (SkCanvas *self)
{
  g_autoptr(GPtrArray) changes = NULL;
  SkCanvasProposal *proposal;
  SkProject *scratch;

  g_clear_pointer (&self->proposal, proposal_free);
  if (self->changeset == NULL)
    return;

  scratch = sk_changeset_get_scratch (self->changeset);
  changes = sk_changeset_get_changes (self->changeset);

  proposal = g_new0 (SkCanvasProposal, 1);
  proposal->steps = g_ptr_array_new_with_free_func (proposal_step_free);
  proposal->by_id = g_hash_table_new (g_str_hash, g_str_equal);
  proposal->edges = g_array_new (FALSE, TRUE, sizeof (ProposalEdge));
  g_array_set_clear_func (proposal->edges, proposal_edge_clear);
  proposal->hidden = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_ptr_array_unref);

  /* The changes come by kind, added steps first, so that the connections
   * of a new step find it marked as new. */
  for (guint i = 0; i < changes->len; i++)
    {
      const SkChange *change = g_ptr_array_index (changes, i);
      ProposalStep *step;
      ProposalEdge edge = { NULL, };
      gboolean prior_accepted = TRUE;

      switch (change->kind)
        {
        case SK_CHANGE_ADDED:
          step = proposal_mark (proposal, self->changeset, change->step_id, MARK_ADDED);
          step->item = g_new0 (SkCanvasItem, 1);
          step->item->node = g_object_ref (sk_project_get_node (scratch, change->step_id));
          break;

        case SK_CHANGE_REMOVED:
          proposal_mark (proposal, self->changeset, change->step_id, MARK_REMOVED);
          break;

        case SK_CHANGE_TASK_CHANGED:
          step = proposal_mark (proposal, self->changeset, change->step_id, MARK_CHANGED);
          step->task_changed = TRUE;
          break;

        case SK_CHANGE_RENAMED:
        case SK_CHANGE_DESCRIPTION_CHANGED:
        case SK_CHANGE_RUN_CHANGED:
          proposal_mark (proposal, self->changeset, change->step_id, MARK_CHANGED);
          break;

        case SK_CHANGE_CONNECTED:
        case SK_CHANGE_DISCONNECTED:
          step = proposal_mark (proposal, self->changeset, change->step_id, MARK_CHANGED);
          edge.prior = g_strdup (change->other_id);
          edge.step = g_strdup (change->step_id);
          edge.added = change->kind == SK_CHANGE_CONNECTED;
          edge.crossed = !edge.added;
          /* A rejected step keeps its priors, and a rejected new step is
           * not there to connect. */
          proposal_is_added (proposal, change->other_id, &prior_accepted);
          edge.accepted = step->accepted && prior_accepted;
          g_array_append_val (proposal->edges, edge);
          break;

        case SK_CHANGE_PROCESS_CHANGED:
        default:
          break;
        }
    }

  /* Placed before it is shown, so that the workflow's bounds do not yet
   * take its steps in. */
  proposal->n_listed_edges = proposal->edges->len;
  place_added_steps (self, proposal);
  self->proposal = proposal;
}

void
_sk_canvas_proposal_base_changed (SkCanvas *self)
{
  if (self->proposal == NULL)
    return;

  self->proposal->resolved = FALSE;
  _sk_canvas_invalidate_edges (self);
}

/**
 * _sk_canvas_proposal_bounds:
 * @self: a #SkCanvas
 * @rect: (out): the boxes of the steps the proposal adds, in model
 *   coordinates
 *
 * Returns: whether the proposal adds steps
 */
gboolean
_sk_canvas_proposal_bounds (SkCanvas        *self,
                            graphene_rect_t *rect)
{
  gboolean found = FALSE;

  if (self->proposal == NULL)
    return FALSE;

  for (guint i = 0; i < self->proposal->steps->len; i++)
    {
      ProposalStep *step = g_ptr_array_index (self->proposal->steps, i);
      graphene_rect_t box;

      if (step->kind != MARK_ADDED)
        continue;

      box = GRAPHENE_RECT_INIT (step->item->x - NODE_W / 2, step->item->y - NODE_H / 2, NODE_W, NODE_H);
      if (found)
        graphene_rect_union (rect, &box, rect);
      else
        *rect = box;
      found = TRUE;
    }

  return found;
}

/* Whether the model point (@x, @y) lies on a step the proposal adds, which
 * is only a picture: a click there must not make a real step. */
gboolean
_sk_canvas_proposal_step_at (SkCanvas *self,
                             double    x,
                             double    y)
{
  if (self->proposal == NULL)
    return FALSE;

  for (guint i = 0; i < self->proposal->steps->len; i++)
    {
      ProposalStep *step = g_ptr_array_index (self->proposal->steps, i);

      if (step->kind == MARK_ADDED &&
          fabs (x - step->item->x) <= NODE_W / 2 && fabs (y - step->item->y) <= NODE_H / 2)
        return TRUE;
    }

  return FALSE;
}

/**
 * sk_canvas_get_proposal:
 * @self: a #SkCanvas
 *
 * Returns: (transfer none) (nullable): the changeset drawn over the
 *   workflow
 */
SkChangeset *
sk_canvas_get_proposal (SkCanvas *self)
{
  g_return_val_if_fail (SK_IS_CANVAS (self), NULL);

  return self->changeset;
}

/**
 * sk_canvas_set_proposal:
 * @self: a #SkCanvas
 * @changeset: (nullable): a chat's changeset for the workflow shown, or
 *   %NULL to show none
 *
 * Draws the changes of @changeset over the workflow: new steps and
 * connections dashed in the accent colour, removed ones struck through in
 * the error colour, and changed steps outlined with a badge. A rejected new
 * step is drawn faintly; a step whose removal or change is rejected is
 * drawn as it is. The proposal is only a picture: its new steps cannot be
 * selected, and the workflow is edited as before.
 *
 * Call sk_canvas_proposal_changed() after each change of @changeset, and
 * after a step of it is accepted or rejected.
 */
void
sk_canvas_set_proposal (SkCanvas    *self,
                        SkChangeset *changeset)
{
  g_return_if_fail (SK_IS_CANVAS (self));
  g_return_if_fail (changeset == NULL || SK_IS_CHANGESET (changeset));

  g_set_object (&self->changeset, changeset);
  sk_canvas_proposal_changed (self);
}

/**
 * sk_canvas_proposal_changed:
 * @self: a #SkCanvas
 *
 * Draws the proposal again after its changeset changed, or a step of it
 * was accepted or rejected.
 */
void
sk_canvas_proposal_changed (SkCanvas *self)
{
  g_return_if_fail (SK_IS_CANVAS (self));

  proposal_rebuild (self);
  _sk_canvas_invalidate_edges (self);
  _sk_canvas_update_actions (self);
}

/* Edges */

/**
 * _sk_canvas_edge_route:
 * @from: the prior's item
 * @to: the step's item
 * @p: (out caller-allocates): the curve, x0 y0 … x3 y3 in model coordinates
 *
 * An edge joins the sides of the two boxes that face each other: bottom to
 * top when the step is clearly below its prior, right to left when it is
 * beside it, and the mirrored cases. It leaves and enters perpendicular to
 * those sides and ends just outside the step's box, so that it never runs
 * under either box and its arrowhead stays in sight.
 */
void
_sk_canvas_edge_route (SkCanvasItem *from,
                       SkCanvasItem *to,
                       double        p[8])
{
  double dx = to->x - from->x;
  double dy = to->y - from->y;
  /* The gaps between the boxes, across and down; negative when they
   * overlap in that direction. */
  double gap_x = fabs (dx) - NODE_W;
  double gap_y = fabs (dy) - NODE_H;
  double bend;

  if (gap_y >= gap_x || (gap_x <= 0 && gap_y <= 0 && fabs (dy) / NODE_H >= fabs (dx) / NODE_W))
    {
      double sign = dy >= 0 ? 1 : -1;

      p[0] = from->x;
      p[1] = from->y + sign * NODE_H / 2;
      p[6] = to->x;
      p[7] = to->y - sign * (NODE_H / 2 + EDGE_END_GAP);
      bend = MAX (EDGE_MIN_BEND, fabs (p[7] - p[1]) / 2);
      p[2] = p[0];
      p[3] = p[1] + sign * bend;
      p[4] = p[6];
      p[5] = p[7] - sign * bend;
    }
  else
    {
      double sign = dx >= 0 ? 1 : -1;

      p[0] = from->x + sign * NODE_W / 2;
      p[1] = from->y;
      p[6] = to->x - sign * (NODE_W / 2 + EDGE_END_GAP);
      p[7] = to->y;
      bend = MAX (EDGE_MIN_BEND, fabs (p[6] - p[0]) / 2);
      p[2] = p[0] + sign * bend;
      p[3] = p[1];
      p[4] = p[6] - sign * bend;
      p[5] = p[7];
    }
}

static void
path_arrow (cairo_t      *cr,
            const double  p[8])
{
  double angle;
  const double size = 9;

  angle = atan2 (p[7] - p[5], p[6] - p[4]);
  cairo_move_to (cr, p[6], p[7]);
  cairo_line_to (cr, p[6] - size * cos (angle - 0.45), p[7] - size * sin (angle - 0.45));
  cairo_move_to (cr, p[6], p[7]);
  cairo_line_to (cr, p[6] - size * cos (angle + 0.45), p[7] - size * sin (angle + 0.45));
}

static void
path_edge (cairo_t      *cr,
           const double  p[8])
{
  cairo_move_to (cr, p[0], p[1]);
  cairo_curve_to (cr, p[2], p[3], p[4], p[5], p[6], p[7]);
  path_arrow (cr, p);
}

/* Splits a cubic Bézier curve with de Casteljau's construction and keeps the
 * part before @t (@left) or after it. */
static void
cubic_split (const double  p[8],
             double        t,
             gboolean      left,
             double        out[8])
{
  for (guint c = 0; c < 2; c++)
    {
      double ab = p[c] + (p[2 + c] - p[c]) * t;
      double bc = p[2 + c] + (p[4 + c] - p[2 + c]) * t;
      double cd = p[4 + c] + (p[6 + c] - p[4 + c]) * t;
      double abc = ab + (bc - ab) * t;
      double bcd = bc + (cd - bc) * t;
      double mid = abc + (bcd - abc) * t;

      if (left)
        {
          out[c] = p[c];
          out[2 + c] = ab;
          out[4 + c] = abc;
          out[6 + c] = mid;
        }
      else
        {
          out[c] = mid;
          out[2 + c] = bcd;
          out[4 + c] = cd;
          out[6 + c] = p[6 + c];
        }
    }
}

/* Adds only the part of an edge that crosses @view. Cairo flattens and
 * strokes a curve over its whole length, so a long edge that merely passes
 * through the view would otherwise cost as much as if all of it were seen. */
static void
path_visible_edge (cairo_t               *cr,
                   const double           p[8],
                   const graphene_rect_t *view)
{
  int first = -1;
  int last = -1;
  double last_x = p[0];
  double last_y = p[1];
  double t0, t1;
  double part[8];
  double head[8];

  for (int k = 1; k <= EDGE_SAMPLES; k++)
    {
      double x, y;
      graphene_rect_t segment;

      _sk_canvas_cubic_point (p, (double) k / EDGE_SAMPLES, &x, &y);
      graphene_rect_init (&segment, MIN (x, last_x), MIN (y, last_y),
                          fabs (x - last_x) + 1, fabs (y - last_y) + 1);
      if (graphene_rect_intersection (&segment, view, NULL))
        {
          if (first < 0)
            first = k;
          last = k;
        }
      last_x = x;
      last_y = y;
    }

  if (first < 0)
    return;

  if (first == 1 && last == EDGE_SAMPLES)
    {
      path_edge (cr, p);
      return;
    }

  t0 = (double) (first - 1) / EDGE_SAMPLES;
  t1 = (double) last / EDGE_SAMPLES;
  cubic_split (p, t1, TRUE, head);
  if (t0 > 0)
    cubic_split (head, t0 / t1, FALSE, part);
  else
    memcpy (part, head, sizeof part);

  /* The arrowhead belongs to the end of the whole edge. */
  if (last == EDGE_SAMPLES)
    {
      path_edge (cr, part);
      return;
    }

  cairo_move_to (cr, part[0], part[1]);
  cairo_curve_to (cr, part[2], part[3], part[4], part[5], part[6], part[7]);
}

/* A proposal's layer is drawn in widget coordinates, with the zoom applied
 * to the cairo context, because GTK 4.8 misplaces cairo content on a
 * snapshot that is both scaled and translated. It is drawn into an image
 * once and kept until the view changes: a cairo node only records the
 * drawing, and the cairo renderer would stroke it again in each frame. */
static cairo_t *
layer_begin (SkCanvas *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  cairo_surface_t *surface;
  cairo_t *cr;

  if (width <= 0 || height <= 0)
    return NULL;

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width * scale, height * scale);
  cairo_surface_set_device_scale (surface, scale, scale);
  cr = cairo_create (surface);
  cairo_surface_destroy (surface);
  cairo_translate (cr, self->offset_x, self->offset_y);
  cairo_scale (cr, self->zoom, self->zoom);

  return cr;
}

static GskRenderNode *
layer_end (SkCanvas *self,
           cairo_t  *cr)
{
  cairo_surface_t *surface;
  GskRenderNode *node;

  if (cr == NULL)
    return gsk_container_node_new (NULL, 0);

  surface = cairo_surface_reference (cairo_get_target (cr));
  cairo_destroy (cr);
  node = _sk_canvas_picture_node (self, surface,
                                  gtk_widget_get_width (GTK_WIDGET (self)),
                                  gtk_widget_get_height (GTK_WIDGET (self)));
  cairo_surface_destroy (surface);

  return node;
}

/* The connections a proposal adds, dashed in the accent colour, and those
 * it removes, dashed in the error colour and crossed out in the middle
 * unless they go with a removed step, instead of the workflow's own. */
static void
draw_proposal_edges (SkCanvas              *self,
                     cairo_t               *cr,
                     const graphene_rect_t *near)
{
  GArray *edges = self->proposal->edges;
  double dashes[] = { MAX (7.0, 4.0 / self->zoom), MAX (5.0, 3.0 / self->zoom) };
  double cross = MAX (5.0, 3.0 / self->zoom);

  cairo_set_line_width (cr, MAX (2.0, 1.5 / self->zoom));
  for (guint i = 0; i < edges->len; i++)
    {
      ProposalEdge *edge = &g_array_index (edges, ProposalEdge, i);
      GdkRGBA color;
      double p[8];

      /* A rejected removal leaves the connection drawn as it is. */
      if (edge->from == NULL || edge->to == NULL || (!edge->added && !edge->accepted))
        continue;
      _sk_canvas_edge_route (edge->from, edge->to, p);
      if (!_sk_canvas_edge_visible (p, near))
        continue;

      color = edge->added ? accent_color (1) : rgba (ERROR_COLOR, 1);
      if (!edge->accepted)
        color.alpha = REJECTED_ALPHA;
      gdk_cairo_set_source_rgba (cr, &color);

      cairo_set_dash (cr, dashes, G_N_ELEMENTS (dashes), 0);
      cairo_move_to (cr, p[0], p[1]);
      if (self->zoom < CURVE_MIN_ZOOM)
        cairo_line_to (cr, p[6], p[7]);
      else
        cairo_curve_to (cr, p[2], p[3], p[4], p[5], p[6], p[7]);
      cairo_stroke (cr);

      cairo_set_dash (cr, NULL, 0, 0);
      if (self->zoom >= CURVE_MIN_ZOOM)
        path_arrow (cr, p);
      if (edge->crossed)
        {
          double mx, my;

          _sk_canvas_cubic_point (p, 0.5, &mx, &my);
          cairo_move_to (cr, mx - cross, my - cross);
          cairo_line_to (cr, mx + cross, my + cross);
          cairo_move_to (cr, mx + cross, my - cross);
          cairo_line_to (cr, mx - cross, my + cross);
        }
      cairo_stroke (cr);
    }
}

/* The selected connection, and the one being made, which follows the
 * pointer. */
static void
draw_overlay_edges (SkCanvas    *self,
                    GtkSnapshot *snapshot)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  GdkRGBA accent = rgba (0x3584e4, 1);
  SkCanvasItem *source = _sk_canvas_lookup_item (self, self->connect.source);
  SkCanvasItem *edge_from = _sk_canvas_lookup_item (self, self->edge_prior);
  SkCanvasItem *edge_to = _sk_canvas_lookup_item (self, self->edge_node);
  gboolean pointer_inside = self->hover.inside;
  cairo_t *cr;

  if ((source == NULL || !pointer_inside) && (edge_from == NULL || edge_to == NULL))
    return;

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  cairo_translate (cr, self->offset_x, self->offset_y);
  cairo_scale (cr, self->zoom, self->zoom);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  gdk_cairo_set_source_rgba (cr, &accent);

  if (edge_from != NULL && edge_to != NULL)
    {
      double p[8];

      _sk_canvas_edge_route (edge_from, edge_to, p);
      cairo_set_line_width (cr, MAX (3.5, 2.0 / self->zoom));
      path_edge (cr, p);
      cairo_stroke (cr);
    }

  if (source != NULL && pointer_inside)
    {
      SkCanvasItem pointer = { NULL, };
      double dashes[] = { 6.0, 4.0 };
      double p[8];

      /* The line leaves the side of the source that faces the pointer. */
      _sk_canvas_widget_to_model (self, self->hover.x, self->hover.y, &pointer.x, &pointer.y);
      _sk_canvas_edge_route (source, &pointer, p);
      cairo_set_line_width (cr, MAX (2.0, 1.0 / self->zoom));
      cairo_set_dash (cr, dashes, 2, 0);
      cairo_move_to (cr, p[0], p[1]);
      cairo_line_to (cr, pointer.x, pointer.y);
      cairo_stroke (cr);
    }

  cairo_destroy (cr);
}

/* Steps */

static void
append_rounded_border (GtkSnapshot           *snapshot,
                       const graphene_rect_t *rect,
                       double                 radius,
                       double                 width,
                       const GdkRGBA         *color)
{
  GskRoundedRect rounded;
  const float widths[4] = { width, width, width, width };
  const GdkRGBA colors[4] = { *color, *color, *color, *color };

  gsk_rounded_rect_init_from_rect (&rounded, rect, radius);
  gtk_snapshot_append_border (snapshot, &rounded, widths, colors);
}

static void
append_rounded_fill (GtkSnapshot           *snapshot,
                     const graphene_rect_t *rect,
                     double                 radius,
                     const GdkRGBA         *color)
{
  GskRoundedRect rounded;

  gsk_rounded_rect_init_from_rect (&rounded, rect, radius);
  gtk_snapshot_push_rounded_clip (snapshot, &rounded);
  gtk_snapshot_append_color (snapshot, color, rect);
  gtk_snapshot_pop (snapshot);
}

/* Steps that are waiting, running or having their code written mean that
 * a run is going, during which a step cannot be run on its own. */
static gboolean
run_going (SkCanvas *self)
{
  for (guint i = 0; i < self->items->len; i++)
    {
      SkNodeState state = sk_node_get_state (((SkCanvasItem *) g_ptr_array_index (self->items, i))->node);

      if (state == SK_NODE_STATE_QUEUED || _sk_canvas_state_is_busy (state))
        return TRUE;
    }

  return FALSE;
}

/* The run button sits at the right end of the selected or hovered step's
 * box, when zoomed in enough to hit it. */
static gboolean
run_button_shown (SkCanvas     *self,
                  SkCanvasItem *item,
                  gboolean      selected)
{
  return self->zoom >= TASK_MIN_ZOOM &&
         ((selected && item->node == self->focus) || item->node == self->hover.node);
}

static void
run_button_center (SkCanvasItem *item,
                   double       *x,
                   double       *y)
{
  /* Beside the state line, which is short, so that the name and the task
   * stay readable. */
  *x = item->x + NODE_W / 2 - LABEL_PAD_END - RUN_BUTTON_RADIUS;
  *y = item->y + NODE_H / 2 - 5 - RUN_BUTTON_RADIUS;
}

/**
 * _sk_canvas_run_button_at:
 * @self: a #SkCanvas
 * @x: widget x
 * @y: widget y
 * @node: (out): the step whose run button is at (@x, @y)
 *
 * Returns: whether a run button shown is at (@x, @y)
 */
gboolean
_sk_canvas_run_button_at (SkCanvas  *self,
                          double     x,
                          double     y,
                          SkNode   **node)
{
  SkCanvasItem *candidates[2] = {
    _sk_canvas_lookup_item (self, self->hover.node),
    _sk_canvas_lookup_item (self, self->focus),
  };
  double mx, my;

  if (self->zoom < TASK_MIN_ZOOM || run_going (self))
    return FALSE;

  _sk_canvas_widget_to_model (self, x, y, &mx, &my);
  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      SkCanvasItem *item = candidates[i];
      double cx, cy;

      if (item == NULL || !run_button_shown (self, item, _sk_canvas_is_selected (self, item->node)))
        continue;

      run_button_center (item, &cx, &cy);
      if (hypot (mx - cx, my - cy) <= RUN_BUTTON_RADIUS + 2)
        {
          *node = item->node;
          return TRUE;
        }
    }

  return FALSE;
}

/* Badges and buttons are drawn in widget coordinates, so that a warning
 * badge keeps its size however far out the view is. */
static void
draw_badge (GtkSnapshot *snapshot,
            double       x,
            double       y)
{
  GdkRGBA error = rgba (ERROR_COLOR, 1);
  GdkRGBA white = rgba (0xffffff, 1);
  const double r = BADGE_RADIUS;

  append_rounded_fill (snapshot, &GRAPHENE_RECT_INIT (x - r - 1, y - r - 1, 2 * r + 2, 2 * r + 2), r + 1, &white);
  append_rounded_fill (snapshot, &GRAPHENE_RECT_INIT (x - r, y - r, 2 * r, 2 * r), r, &error);
  gtk_snapshot_append_color (snapshot, &white, &GRAPHENE_RECT_INIT (x - 1, y - r * 0.6, 2, r * 0.75));
  gtk_snapshot_append_color (snapshot, &white, &GRAPHENE_RECT_INIT (x - 1, y + r * 0.3, 2, 2));
}

static void
draw_run_button (SkCanvas     *self,
                 GtkSnapshot  *snapshot,
                 SkCanvasItem *item)
{
  GdkRGBA fill = rgba (0x2ec27e, 1);
  GdkRGBA ring = is_dark () ? rgba (0x3a3a3a, 1) : rgba (0xffffff, 1);
  double mx, my, x, y;
  double r = RUN_BUTTON_RADIUS * self->zoom;
  cairo_t *cr;

  run_button_center (item, &mx, &my);
  _sk_canvas_model_to_widget (self, mx, my, &x, &y);

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (x - r - 3, y - r - 3, 2 * r + 6, 2 * r + 6));
  cairo_arc (cr, x, y, r + 2, 0, 2 * G_PI);
  gdk_cairo_set_source_rgba (cr, &ring);
  cairo_fill (cr);
  cairo_arc (cr, x, y, r, 0, 2 * G_PI);
  gdk_cairo_set_source_rgba (cr, &fill);
  cairo_fill (cr);
  cairo_move_to (cr, x - r * 0.3, y - r * 0.45);
  cairo_line_to (cr, x + r * 0.5, y);
  cairo_line_to (cr, x - r * 0.3, y + r * 0.45);
  cairo_close_path (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_fill (cr);
  cairo_destroy (cr);
}

/* Zoomed out a step is a few pixels wide: a flat rectangle in the colour
 * of its state shows it, its run mark, selection and problem as well as a
 * rounded, clipped and bordered box, at a fraction of the cost. Its name
 * is drawn over it afterwards, where there is room. */
static void
draw_node_flat (SkCanvas     *self,
                GtkSnapshot  *snapshot,
                SkCanvasItem *item,
                gboolean      selected)
{
  gboolean dark = is_dark ();
  graphene_rect_t rect = GRAPHENE_RECT_INIT (item->x - NODE_W / 2, item->y - NODE_H / 2, NODE_W, NODE_H);
  GdkRGBA fill = state_color (sk_node_get_state (item->node));
  GdkRGBA outline;
  graphene_rect_t outer;
  double grow = 0;

  if (selected || item->node == self->connect.source)
    {
      outline = rgba (0x3584e4, 1);
      grow = RING_GAP + RING_WIDTH;
    }
  else if (sk_node_get_state (item->node) == SK_NODE_STATE_AWAITING_APPROVAL)
    {
      outline = rgba (GATE_COLOR, 1);
      grow = RING_GAP + RING_WIDTH;
    }
  else if (node_has_problem (self, item->node))
    {
      outline = rgba (ERROR_COLOR, 1);
      grow = RING_GAP + RING_WIDTH;
    }
  else if (sk_node_get_run (item->node))
    {
      outline = rgba (0x2ec27e, 1);
      grow = RING_GAP + RING_WIDTH;
    }
  else
    {
      outline = dark ? rgba (0x5e5c64, 1) : rgba (0x9a9996, 1);
      grow = 1 / self->zoom;
    }

  graphene_rect_inset_r (&rect, -grow, -grow, &outer);
  gtk_snapshot_append_color (snapshot, &outline, &outer);
  gtk_snapshot_append_color (snapshot, &fill, &rect);
}

static void
append_layout_at (GtkSnapshot   *snapshot,
                  PangoLayout   *layout,
                  double         x,
                  double         y,
                  const GdkRGBA *color)
{
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x, y));
  gtk_snapshot_append_layout (snapshot, layout, color);
  gtk_snapshot_restore (snapshot);
}

/* A condition's label: a pill centred on (@x, @y) in the current
 * coordinates. */
static graphene_rect_t
condition_pill (PangoLayout *layout,
                double       x,
                double       y)
{
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);

  return GRAPHENE_RECT_INIT (round (x - w / 2.0) - 6, round (y - h / 2.0) - 2, w + 12, h + 4);
}

/* Control flow is drawn in pills with a thin border, in the colours of a
 * step's box, unlike the filled badges of a proposal and the washed labels
 * of what flowed. */
static void
draw_outlined_pill (GtkSnapshot           *snapshot,
                    PangoLayout           *layout,
                    const graphene_rect_t *pill)
{
  gboolean dark = is_dark ();
  GdkRGBA fill = dark ? rgba (0x3a3a3a, 1) : rgba (0xffffff, 1);
  GdkRGBA border = dark ? rgba (0x77767b, 1) : rgba (0x9a9996, 1);
  GdkRGBA text = dark ? rgba (0xffffff, 1) : rgba (0x241f31, 1);
  double radius = pill->size.height / 2;
  int h;

  pango_layout_get_pixel_size (layout, NULL, &h);
  append_rounded_fill (snapshot, pill, radius, &fill);
  append_rounded_border (snapshot, pill, radius, 1, &border);
  append_layout_at (snapshot, layout, pill->origin.x + 6, pill->origin.y + round ((pill->size.height - h) / 2), &text);
}

/* Where the text in a box goes: the name first, on up to two lines; then
 * the task's first line when zoomed in enough to read it, and the state,
 * each as far as there is room in the box. */
typedef struct
{
  PangoLayout *name;
  PangoLayout *task;
  PangoLayout *status;
  int          name_h;
  int          task_h;
  double       x;
  double       y;
} TextPlace;

static void
place_text (SkCanvas     *self,
            SkCanvasItem *item,
            PangoLayout  *status,
            TextPlace    *place)
{
  double room = NODE_H - 2 * TEXT_MARGIN;
  PangoLayout *task = NULL;
  int status_h = 0;
  double used;

  place->name = item_layout (self, item);
  pango_layout_get_pixel_size (place->name, NULL, &place->name_h);
  if (status != NULL)
    pango_layout_get_pixel_size (status, NULL, &status_h);
  if (self->zoom >= TASK_MIN_ZOOM)
    task = task_layout (self, item);
  place->task_h = 0;
  if (task != NULL)
    pango_layout_get_pixel_size (task, NULL, &place->task_h);

  place->status = status != NULL && place->name_h + status_h <= room ? status : NULL;
  place->task = task != NULL &&
                place->name_h + place->task_h + (place->status != NULL ? status_h : 0) <= room ? task : NULL;
  used = place->name_h + (place->status != NULL ? status_h : 0) + (place->task != NULL ? place->task_h : 0);

  place->x = item->x - NODE_W / 2 + STRIPE_WIDTH + LABEL_PAD;
  place->y = item->y - NODE_H / 2 + MAX (TEXT_MARGIN, (NODE_H - used) / 2);
}

static void
append_text (SkCanvas        *self,
             GtkSnapshot     *snapshot,
             const TextPlace *place,
             const GdkRGBA   *name_color)
{
  gboolean dark = is_dark ();
  GdkRGBA dim = dark ? rgba (0xffffff, 0.7f) : rgba (0x241f31, 0.7f);
  GdkRGBA dimmer = dark ? rgba (0xffffff, 0.55f) : rgba (0x241f31, 0.55f);
  double y = place->y;

  append_layout_at (snapshot, place->name, place->x, y, name_color);
  y += place->name_h;
  if (place->task != NULL)
    {
      append_layout_at (snapshot, place->task, place->x, y, &dimmer);
      y += place->task_h;
    }
  if (place->status != NULL)
    append_layout_at (snapshot, place->status, place->x, y, &dim);
}

/* The badge of a gate, a for-each or a sub-workflow step, on the left of
 * its box's bottom edge, away from a proposal's badge on the top edge and
 * from the run button on the right, and a little below the edge, clear of
 * the state's line. */
static void
draw_control_badge (SkCanvas     *self,
                    GtkSnapshot  *snapshot,
                    SkCanvasItem *item)
{
  PangoLayout *layout = control_layout (self, item);
  int w;

  if (layout == NULL)
    return;

  pango_layout_get_pixel_size (layout, &w, NULL);
  draw_outlined_pill (snapshot, layout,
                      &GRAPHENE_RECT_INIT (item->x - NODE_W / 2 + STRIPE_WIDTH + LABEL_PAD - 6,
                                           item->y + NODE_H / 2 - BADGE_HEIGHT / 2 + 2,
                                           w + 12, BADGE_HEIGHT));
}

/* A segment sliding along the bottom edge shows that the step works. It is
 * drawn over the tiles in each frame. */
static void
draw_busy_bar (SkCanvas     *self,
               GtkSnapshot  *snapshot,
               SkCanvasItem *item)
{
  graphene_rect_t rect = GRAPHENE_RECT_INIT (item->x - NODE_W / 2, item->y - NODE_H / 2, NODE_W, NODE_H);
  GdkRGBA stripe = state_color (sk_node_get_state (item->node));
  double phase = fmod (self->frame_time / 1e6, 1.2) / 1.2;
  double bar = NODE_W * 0.3;
  double bx = rect.origin.x - bar + phase * (NODE_W + bar);
  GskRoundedRect rounded;

  gsk_rounded_rect_init_from_rect (&rounded, &rect, NODE_RADIUS);
  gtk_snapshot_push_rounded_clip (snapshot, &rounded);
  gtk_snapshot_append_color (snapshot, &stripe,
                             &GRAPHENE_RECT_INIT (bx, rect.origin.y + NODE_H - 4, bar, 4));
  gtk_snapshot_pop (snapshot);
}

static void
draw_node (SkCanvas     *self,
           GtkSnapshot  *snapshot,
           SkCanvasItem *item,
           gboolean      selected,
           gboolean      animate)
{
  SkNodeState state = sk_node_get_state (item->node);
  gboolean dark = is_dark ();
  gboolean problem = node_has_problem (self, item->node);
  graphene_rect_t rect = GRAPHENE_RECT_INIT (item->x - NODE_W / 2, item->y - NODE_H / 2, NODE_W, NODE_H);
  GdkRGBA fill = dark ? rgba (0x3a3a3a, 1) : rgba (0xffffff, 1);
  GdkRGBA border = dark ? rgba (0x5e5c64, 1) : rgba (0xc0bfbc, 1);
  GdkRGBA text = dark ? rgba (0xffffff, 1) : rgba (0x241f31, 1);
  GdkRGBA accent = rgba (0x3584e4, 1);
  GdkRGBA error = rgba (ERROR_COLOR, 1);
  GdkRGBA gate = rgba (GATE_COLOR, 1);
  GdkRGBA stripe = state_color (state);
  GskRoundedRect rounded;
  TextPlace place;

  if (item->node == self->hover.node && !selected)
    fill = dark ? rgba (0x454545, 1) : rgba (0xf6f5f4, 1);

  if (sk_node_get_run (item->node))
    {
      GdkRGBA ring = rgba (0x2ec27e, 1);
      graphene_rect_t outer;

      graphene_rect_inset_r (&rect, -(RING_GAP + RING_WIDTH), -(RING_GAP + RING_WIDTH), &outer);
      append_rounded_border (snapshot, &outer, NODE_RADIUS + RING_GAP + RING_WIDTH, RING_WIDTH, &ring);
    }

  gsk_rounded_rect_init_from_rect (&rounded, &rect, NODE_RADIUS);
  gtk_snapshot_push_rounded_clip (snapshot, &rounded);
  gtk_snapshot_append_color (snapshot, &fill, &rect);
  gtk_snapshot_append_color (snapshot, &stripe,
                             &GRAPHENE_RECT_INIT (rect.origin.x, rect.origin.y, STRIPE_WIDTH, NODE_H));

  gtk_snapshot_pop (snapshot);
  if (animate && _sk_canvas_state_is_busy (state))
    draw_busy_bar (self, snapshot, item);

  if (selected)
    append_rounded_border (snapshot, &rect, NODE_RADIUS, 2.5, &accent);
  else if (state == SK_NODE_STATE_AWAITING_APPROVAL)
    append_rounded_border (snapshot, &rect, NODE_RADIUS, GATE_OUTLINE_WIDTH, &gate);
  else if (problem)
    append_rounded_border (snapshot, &rect, NODE_RADIUS, 2.5, &error);
  else
    append_rounded_border (snapshot, &rect, NODE_RADIUS, 1, &border);

  if (item->node == self->connect.source)
    {
      graphene_rect_t outer;

      graphene_rect_inset_r (&rect, -2, -2, &outer);
      append_rounded_border (snapshot, &outer, NODE_RADIUS + 2, 2, &accent);
    }
  else if (selected && state == SK_NODE_STATE_AWAITING_APPROVAL)
    {
      graphene_rect_t outer;

      /* Selected, a waiting gate keeps its colour just outside the accent. */
      graphene_rect_inset_r (&rect, -2, -2, &outer);
      append_rounded_border (snapshot, &outer, NODE_RADIUS + 2, 2, &gate);
    }

  place_text (self, item, state_layout (self, state), &place);
  append_text (self, snapshot, &place, problem ? &error : &text);
  self->names_painted++;

  draw_control_badge (self, snapshot, item);
}

/* Proposals over the steps */

static graphene_rect_t
item_box (SkCanvasItem *item)
{
  return GRAPHENE_RECT_INIT (item->x - NODE_W / 2, item->y - NODE_H / 2, NODE_W, NODE_H);
}

static void
path_rounded_rect (cairo_t               *cr,
                   const graphene_rect_t *rect,
                   double                 radius)
{
  double x = rect->origin.x;
  double y = rect->origin.y;
  double w = rect->size.width;
  double h = rect->size.height;

  cairo_new_sub_path (cr);
  cairo_arc (cr, x + w - radius, y + radius, radius, -G_PI / 2, 0);
  cairo_arc (cr, x + w - radius, y + h - radius, radius, 0, G_PI / 2);
  cairo_arc (cr, x + radius, y + h - radius, radius, G_PI / 2, G_PI);
  cairo_arc (cr, x + radius, y + radius, radius, G_PI, 3 * G_PI / 2);
  cairo_close_path (cr);
}

/* A new step is a box of its own, tinted with the accent colour, with its
 * name and its task's first line; its dashed outline and its badge come
 * with the other marks. */
static void
draw_added_steps (SkCanvas              *self,
                  GtkSnapshot           *snapshot,
                  const graphene_rect_t *view,
                  gboolean               detail)
{
  gboolean dark = is_dark ();
  GdkRGBA fill = dark ? rgba (0x3a3a3a, 1) : rgba (0xffffff, 1);
  GdkRGBA tint = rgba (ACCENT_COLOR, dark ? 0.25f : 0.12f);
  GdkRGBA text = dark ? rgba (0xffffff, 1) : rgba (0x241f31, 1);

  for (guint i = 0; i < self->proposal->steps->len; i++)
    {
      ProposalStep *step = g_ptr_array_index (self->proposal->steps, i);
      graphene_rect_t rect;

      if (step->kind != MARK_ADDED)
        continue;
      rect = item_box (step->item);
      if (!graphene_rect_intersection (&rect, view, NULL))
        continue;

      if (!step->accepted)
        gtk_snapshot_push_opacity (snapshot, REJECTED_ALPHA);

      if (detail)
        {
          TextPlace place;

          append_rounded_fill (snapshot, &rect, NODE_RADIUS, &fill);
          append_rounded_fill (snapshot, &rect, NODE_RADIUS, &tint);
          place_text (self, step->item, NULL, &place);
          append_text (self, snapshot, &place, &text);
        }
      else
        {
          gtk_snapshot_append_color (snapshot, &fill, &rect);
          gtk_snapshot_append_color (snapshot, &tint, &rect);
        }

      if (!step->accepted)
        gtk_snapshot_pop (snapshot);
    }
}

/* Where the line striking out the line of text at @iter goes, relative to
 * its layout: through the middle of the small letters, a little longer
 * than the text. */
static void
strike_line (PangoLayoutIter *iter,
             double          *x,
             double          *y,
             double          *width)
{
  PangoRectangle logical;
  double baseline = pango_layout_iter_get_baseline (iter) / (double) PANGO_SCALE;

  pango_layout_iter_get_line_extents (iter, NULL, &logical);
  *x = logical.x / (double) PANGO_SCALE - 1;
  *y = baseline - 0.27 * (baseline - logical.y / (double) PANGO_SCALE);
  *width = logical.width / (double) PANGO_SCALE + 2;
}

/* A line through each line of a removed step's name, or zoomed out, where
 * the name is not in the box, across the box. */
static void
path_strike (SkCanvas     *self,
             cairo_t      *cr,
             SkCanvasItem *item,
             gboolean      detail)
{
  PangoLayoutIter *iter;
  TextPlace place;

  if (!detail)
    {
      cairo_move_to (cr, item->x - NODE_W / 2 + LABEL_PAD, item->y);
      cairo_line_to (cr, item->x + NODE_W / 2 - LABEL_PAD, item->y);
      return;
    }

  place_text (self, item, state_layout (self, sk_node_get_state (item->node)), &place);
  iter = pango_layout_get_iter (place.name);
  do
    {
      double x, y, width;

      strike_line (iter, &x, &y, &width);
      cairo_move_to (cr, place.x + x, place.y + y);
      cairo_rel_line_to (cr, width, 0);
    }
  while (pango_layout_iter_next_line (iter));
  pango_layout_iter_free (iter);
}

/* The marks over the steps, drawn like the edges into a texture kept until
 * the view or the proposal changes, since dashes need cairo: the outlines
 * of new steps, removed steps washed out, outlined in the error colour and
 * struck through, and changed steps outlined in the accent colour. A
 * rejected removal or change leaves the step as it is. */
static GskRenderNode *
build_proposal_layer (SkCanvas              *self,
                      const graphene_rect_t *view)
{
  gboolean dark = is_dark ();
  gboolean detail = self->zoom >= DETAIL_MIN_ZOOM;
  GdkRGBA wash = dark ? rgba (0x242424, 0.6f) : rgba (0xfafafa, 0.6f);
  GdkRGBA error = rgba (ERROR_COLOR, 1);
  double width = MAX (2.0, 1.5 / self->zoom);
  double dashes[] = { MAX (8.0, 4.0 / self->zoom), MAX (5.0, 3.0 / self->zoom) };
  double radius = detail ? NODE_RADIUS : width / 2;
  double grow = RING_GAP + RING_WIDTH;
  cairo_t *cr = layer_begin (self);
  graphene_rect_t near;

  if (cr == NULL)
    return layer_end (self, cr);

  graphene_rect_inset_r (view, -(grow + width), -(grow + width), &near);

  for (guint i = 0; i < self->proposal->steps->len; i++)
    {
      ProposalStep *step = g_ptr_array_index (self->proposal->steps, i);
      graphene_rect_t rect, outline;
      GdkRGBA color;

      if (step->item == NULL || (step->kind != MARK_ADDED && !step->accepted))
        continue;
      rect = item_box (step->item);
      if (!graphene_rect_intersection (&rect, &near, NULL))
        continue;

      if (step->kind == MARK_REMOVED)
        {
          graphene_rect_t washed;

          /* The wash takes the run ring in too, so that all of the step
           * looks gone. */
          graphene_rect_inset_r (&rect, -grow, -grow, &washed);
          path_rounded_rect (cr, &washed, detail ? NODE_RADIUS + grow : 0);
          gdk_cairo_set_source_rgba (cr, &wash);
          cairo_fill (cr);

          path_strike (self, cr, step->item, detail);
          gdk_cairo_set_source_rgba (cr, &error);
          cairo_set_line_width (cr, detail ? 2.0 : width);
          cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
          cairo_stroke (cr);
          color = error;
        }
      else
        color = accent_color (step->accepted ? 1 : REJECTED_ALPHA);

      /* On the box's own border, inside the run ring. */
      graphene_rect_inset_r (&rect, width / 2, width / 2, &outline);
      path_rounded_rect (cr, &outline, MAX (radius - width / 2, 0));
      gdk_cairo_set_source_rgba (cr, &color);
      cairo_set_line_width (cr, width);
      cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
      cairo_set_dash (cr, dashes, G_N_ELEMENTS (dashes), 0);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }

  return layer_end (self, cr);
}

static PangoLayout *
badge_layout (SkCanvas  *self,
              BadgeKind  kind)
{
  if (self->proposal->badges[kind] == NULL)
    {
      const char *label;

      switch (kind)
        {
        case BADGE_NEW:
          label = C_("proposed step", "New");
          break;
        case BADGE_NEW_TASK:
          label = C_("proposed step", "New Task");
          break;
        case BADGE_REMOVED:
          label = C_("proposed step", "Removed");
          break;
        case BADGE_CHANGED:
        case N_BADGES:
        default:
          label = C_("proposed step", "Changed");
          break;
        }
      self->proposal->badges[kind] = new_layout (self, label, TRUE, TRUE, NODE_W);
    }

  return self->proposal->badges[kind];
}

/* A small label on the right of a marked step's top edge: “New”,
 * “Changed”, “New Task” where its code will be written again, or
 * “Removed”. Zoomed out, the colours alone tell. */
static void
draw_proposal_badges (SkCanvas              *self,
                      GtkSnapshot           *snapshot,
                      const graphene_rect_t *view)
{
  GdkRGBA white = rgba (0xffffff, 1);
  GdkRGBA halo = is_dark () ? rgba (0x242424, 1) : rgba (0xfafafa, 1);

  for (guint i = 0; i < self->proposal->steps->len; i++)
    {
      ProposalStep *step = g_ptr_array_index (self->proposal->steps, i);
      BadgeKind kind;
      GdkRGBA fill;
      PangoLayout *layout;
      graphene_rect_t pill, outer;
      int w, h;

      if (step->item == NULL || (step->kind != MARK_ADDED && !step->accepted))
        continue;

      if (step->kind == MARK_ADDED)
        kind = BADGE_NEW;
      else if (step->kind == MARK_REMOVED)
        kind = BADGE_REMOVED;
      else
        kind = step->task_changed ? BADGE_NEW_TASK : BADGE_CHANGED;
      fill = rgba (kind == BADGE_REMOVED ? DESTRUCTIVE_COLOR : ACCENT_COLOR, 1);

      layout = badge_layout (self, kind);
      pango_layout_get_pixel_size (layout, &w, &h);
      pill = GRAPHENE_RECT_INIT (step->item->x + NODE_W / 2 - 6 - w - 12,
                                 step->item->y - NODE_H / 2 - BADGE_HEIGHT / 2,
                                 w + 12, BADGE_HEIGHT);
      if (!graphene_rect_intersection (&pill, view, NULL))
        continue;

      if (!step->accepted)
        gtk_snapshot_push_opacity (snapshot, REJECTED_ALPHA);
      graphene_rect_inset_r (&pill, -2, -2, &outer);
      append_rounded_fill (snapshot, &outer, BADGE_HEIGHT / 2 + 2, &halo);
      append_rounded_fill (snapshot, &pill, BADGE_HEIGHT / 2, &fill);
      append_layout_at (snapshot, layout, pill.origin.x + 6, pill.origin.y + (BADGE_HEIGHT - h) / 2, &white);
      if (!step->accepted)
        gtk_snapshot_pop (snapshot);
    }
}

static void
draw_problem_badges (SkCanvas              *self,
                     GtkSnapshot           *snapshot,
                     const graphene_rect_t *view)
{
  for (guint i = 0; i < self->items->len; i++)
    {
      SkCanvasItem *to = g_ptr_array_index (self->items, i);
      const char * const *priors = sk_node_get_priors (to->node);
      double x, y;

      if (self->problem_nodes != NULL && node_has_problem (self, to->node) &&
          graphene_rect_contains_point (view, &GRAPHENE_POINT_INIT (to->x - NODE_W / 2, to->y - NODE_H / 2)))
        {
          _sk_canvas_model_to_widget (self, to->x - NODE_W / 2, to->y - NODE_H / 2, &x, &y);
          draw_badge (snapshot, x, y);
        }

      for (guint j = 0; self->problem_edges != NULL && priors != NULL && priors[j] != NULL; j++)
        {
          SkCanvasItem *from = _sk_canvas_lookup_item (self, sk_project_get_node (self->project, priors[j]));
          double p[8];
          double mx, my;

          if (from == NULL || !edge_has_problem (self, from, to))
            continue;
          _sk_canvas_edge_route (from, to, p);
          _sk_canvas_cubic_point (p, 0.5, &mx, &my);
          if (!graphene_rect_contains_point (view, &GRAPHENE_POINT_INIT (mx, my)))
            continue;
          _sk_canvas_model_to_widget (self, mx, my, &x, &y);
          draw_badge (snapshot, x, y);
        }
    }
}

static void
draw_rubber_band (SkCanvas    *self,
                  GtkSnapshot *snapshot)
{
  const SkCanvasRubberBand *rubber = &self->rubber;
  double mx0, my0;
  GdkRGBA fill = rgba (0x3584e4, 0.15f);
  GdkRGBA edge = rgba (0x3584e4, 0.8f);
  graphene_rect_t rect;

  _sk_canvas_widget_to_model (self,
                              MIN (rubber->x0, rubber->x1), MIN (rubber->y0, rubber->y1),
                              &mx0, &my0);
  rect = GRAPHENE_RECT_INIT (mx0, my0,
                             fabs (rubber->x1 - rubber->x0) / self->zoom,
                             fabs (rubber->y1 - rubber->y0) / self->zoom);
  gtk_snapshot_append_color (snapshot, &fill, &rect);
  append_rounded_border (snapshot, &rect, 0, 1 / self->zoom, &edge);
}

/* Tiles ------------------------------------------------------------------ */

/* The picture of the workflow, edges, steps and labels, is drawn into
 * square tiles of the view at the current zoom, each rasterised once with
 * cairo and kept as a texture. Panning only moves them; a frame draws those
 * that came into view, and again those whose steps look different, which
 * each tile tells from the signatures of the steps it drew. What changes
 * by itself or follows the pointer (dragged steps, the sliding segment of
 * steps at work, the selected connection, the rubber band, buttons and
 * badges) is drawn over the tiles in each frame. */

#define TILE_SIZE 256
/* Tiles kept beyond those in view, for panning back. */
#define TILES_KEPT 16
/* With the GL renderer, a dragged step's connection is drawn in at most
 * this many pieces. */
#define MOVING_EDGE_PIECES 64

static guint
item_signature (SkCanvas     *self,
                SkCanvasItem *item,
                gboolean      selected)
{
  return (item->serial << 3) |
         (selected ? 1 : 0) |
         (item->node == self->hover.node ? 2 : 0) |
         (item->node == self->connect.source ? 4 : 0);
}

static gboolean
tile_valid (SkCanvas     *self,
            SkCanvasTile *tile,
            GtkBitset    *selected)
{
  for (guint i = 0; i < tile->signatures->len; i++)
    {
      SkCanvasTileSignature *sig = &g_array_index (tile->signatures, SkCanvasTileSignature, i);

      if (sig->signature != item_signature (self, sig->item, gtk_bitset_contains (selected, sig->position)))
        return FALSE;
    }

  return TRUE;
}

/* The connections in @edges, which meet @near, stroked with cairo. */
static void
stroke_edges (SkCanvas              *self,
              cairo_t               *cr,
              GArray                *edges,
              const graphene_rect_t *near)
{
  GdkRGBA color = is_dark () ? rgba (0x9a9996, 1) : rgba (0x77767b, 1);
  GdkRGBA error = rgba (ERROR_COLOR, 1);

  cairo_set_line_width (cr, MAX (1.5, 1.0 / self->zoom));
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  gdk_cairo_set_source_rgba (cr, &color);

  for (guint k = 0; k < edges->len; k++)
    {
      const SkCanvasEdge *edge = &g_array_index (self->tiles->edges, SkCanvasEdge,
                                                 g_array_index (edges, guint, k));
      SkCanvasItem *from = g_ptr_array_index (self->items, edge->from);
      SkCanvasItem *to = g_ptr_array_index (self->items, edge->to);
      gboolean problem;

      if (from->moving || to->moving || edge_hidden (self, from, to))
        continue;

      problem = edge_has_problem (self, from, to);
      if (problem)
        {
          gdk_cairo_set_source_rgba (cr, &error);
          cairo_set_line_width (cr, MAX (3.0, 2.0 / self->zoom));
        }

      /* Zoomed far out, where curves and arrowheads are a few pixels
       * long, straight lines show the same and cost far less. */
      if (self->zoom < CURVE_MIN_ZOOM)
        {
          cairo_move_to (cr, edge->p[0], edge->p[1]);
          cairo_line_to (cr, edge->p[6], edge->p[7]);
        }
      else
        path_visible_edge (cr, edge->p, near);

      /* One stroke per edge: cairo rasterises many small paths faster
       * than one path made of thousands of crossing pieces. */
      cairo_stroke (cr);

      if (problem)
        {
          gdk_cairo_set_source_rgba (cr, &color);
          cairo_set_line_width (cr, MAX (1.5, 1.0 / self->zoom));
        }
    }
}

/* The labels along the connections in @edges: the condition on each, and
 * what flowed along it out of a step that has run, below the condition
 * when there is one. */
static void
draw_edge_labels (SkCanvas    *self,
                  GtkSnapshot *snapshot,
                  GArray      *edges)
{
  gboolean dark = is_dark ();
  gboolean flows = self->zoom >= FLOW_MIN_ZOOM;
  GdkRGBA pill = dark ? rgba (0x303030, 0.92f) : rgba (0xffffff, 0.92f);
  GdkRGBA text = dark ? rgba (0xffffff, 0.8f) : rgba (0x241f31, 0.8f);

  for (guint k = 0; k < edges->len; k++)
    {
      const SkCanvasEdge *edge = &g_array_index (self->tiles->edges, SkCanvasEdge,
                                                 g_array_index (edges, guint, k));
      SkCanvasItem *from = g_ptr_array_index (self->items, edge->from);
      SkCanvasItem *to = g_ptr_array_index (self->items, edge->to);
      const char * const *priors = sk_node_get_priors (to->node);
      PangoLayout *condition;
      PangoLayout *layout;
      double mx, my;
      int w, h;

      if (from->moving || to->moving || edge_hidden (self, from, to))
        continue;
      condition = condition_layout (self, to, priors[edge->prior]);
      if (condition == NULL && (!flows || from->flow_text == NULL))
        continue;

      /* A condition sits where the edges from one step have parted, so
       * that the conditions on its branches do not cover each other; what
       * flowed goes below it. */
      _sk_canvas_cubic_point (edge->p, condition != NULL ? SK_CANVAS_CONDITION_POSITION : 0.5, &mx, &my);
      if (condition != NULL)
        {
          graphene_rect_t rect = condition_pill (condition, mx, my);

          draw_outlined_pill (snapshot, condition, &rect);
          my = rect.origin.y + rect.size.height + 1;
        }
      if (!flows || from->flow_text == NULL)
        continue;

      layout = flow_layout (self, from);
      pango_layout_get_pixel_size (layout, &w, &h);
      if (condition != NULL)
        my += (h + 2) / 2.0 + 1;
      append_rounded_fill (snapshot, &GRAPHENE_RECT_INIT (mx - w / 2.0 - 5, my - h / 2.0 - 1, w + 10, h + 2),
                           (h + 2) / 2.0, &pill);
      append_layout_at (snapshot, layout, mx - w / 2.0, my - h / 2.0, &text);
    }
}

/* Names zoomed out ------------------------------------------------------- */

/* The placed names are checked for overlap through a grid of cells this
 * many pixels wide. */
#define PLACE_CELL 64

typedef struct
{
  GArray     *placed;
  GHashTable *cells;
} Placer;

static gint64
place_cell_key (int c,
                int r)
{
  return (gint64) (((guint64) (guint32) c << 32) | (guint32) r);
}

static gboolean
placer_free_room (Placer                *placer,
                  const graphene_rect_t *rect)
{
  int c0 = (int) floor (rect->origin.x / PLACE_CELL);
  int r0 = (int) floor (rect->origin.y / PLACE_CELL);
  int c1 = (int) floor ((rect->origin.x + rect->size.width) / PLACE_CELL);
  int r1 = (int) floor ((rect->origin.y + rect->size.height) / PLACE_CELL);

  for (int r = r0; r <= r1; r++)
    for (int c = c0; c <= c1; c++)
      {
        gint64 key = place_cell_key (c, r);
        GArray *cell = g_hash_table_lookup (placer->cells, &key);

        for (guint k = 0; cell != NULL && k < cell->len; k++)
          {
            SkCanvasPlaced *other = &g_array_index (placer->placed, SkCanvasPlaced, g_array_index (cell, guint, k));

            if (graphene_rect_intersection (&other->rect, rect, NULL))
              return FALSE;
          }
      }

  return TRUE;
}

static void
placer_add (Placer               *placer,
            const SkCanvasPlaced *placed)
{
  guint index = placer->placed->len;
  const graphene_rect_t *rect = &placed->rect;
  int c0 = (int) floor (rect->origin.x / PLACE_CELL);
  int r0 = (int) floor (rect->origin.y / PLACE_CELL);
  int c1 = (int) floor ((rect->origin.x + rect->size.width) / PLACE_CELL);
  int r1 = (int) floor ((rect->origin.y + rect->size.height) / PLACE_CELL);

  g_array_append_val (placer->placed, *placed);
  for (int r = r0; r <= r1; r++)
    for (int c = c0; c <= c1; c++)
      {
        gint64 key = place_cell_key (c, r);
        GArray *cell = g_hash_table_lookup (placer->cells, &key);

        if (cell == NULL)
          {
            gint64 *stored = g_new (gint64, 1);

            *stored = key;
            cell = g_array_new (FALSE, FALSE, sizeof (guint));
            g_hash_table_insert (placer->cells, stored, cell);
          }
        g_array_append_val (cell, index);
      }
}

/* Places @item's name over its box unless it would overlap a name placed
 * before. */
static gboolean
place_name (SkCanvas      *self,
            Placer        *placer,
            SkCanvasItem  *item,
            const GdkRGBA *color,
            gboolean       struck,
            gboolean       proposed)
{
  /* As wide as the box, or a few words where the box is smaller; on two
   * lines where the boxes are far enough apart. */
  double width = CLAMP (NODE_W * self->zoom - 6, NAME_MIN_WIDTH, NAME_MAX_WIDTH);
  int lines = self->zoom >= NAME_TWO_LINES_ZOOM ? 2 : 1;
  SkCanvasPlaced placed = { NULL, };
  double x = item->x * self->zoom;
  double y = item->y * self->zoom;
  int w, h;

  placed.layout = label_layout (self, item, width, lines);
  pango_layout_get_pixel_size (placed.layout, &w, &h);
  placed.rect = GRAPHENE_RECT_INIT (round (x - w / 2.0) - 4, round (y - h / 2.0) - 1, w + 8, h + 2);
  if (!placer_free_room (placer, &placed.rect))
    return FALSE;

  placed.item = item;
  placed.color = *color;
  placed.struck = struck;
  placed.proposed = proposed;
  placer_add (placer, &placed);
  return TRUE;
}

static guint
placed_hash (const SkCanvasPlaced *placed)
{
  guint hash = GPOINTER_TO_UINT (placed->item) ^ GPOINTER_TO_UINT (placed->layout);

  hash = hash * 31 + (guint) (gint) placed->rect.origin.x;
  hash = hash * 31 + (guint) (gint) placed->rect.origin.y;
  hash = hash * 31 + (guint) (gint) placed->rect.size.width;
  hash = hash * 31 + (guint) (placed->color.red * 255) + ((guint) (placed->color.alpha * 255) << 8);
  return hash * 2 + placed->struck;
}

/* A hash of the names placed over the tile at (@tx, @ty). */
static guint
tile_names_hash (SkCanvas *self,
                 int       tx,
                 int       ty)
{
  graphene_rect_t rect = GRAPHENE_RECT_INIT (tx * TILE_SIZE, ty * TILE_SIZE, TILE_SIZE, TILE_SIZE);
  GArray *placed = self->tiles->placed;
  guint hash = 0;

  for (guint i = 0; i < placed->len; i++)
    {
      const SkCanvasPlaced *name = &g_array_index (placed, SkCanvasPlaced, i);

      if (graphene_rect_intersection (&name->rect, &rect, NULL))
        hash = hash * 31 + placed_hash (name);
    }

  return hash;
}

static guint64
hash_bitset (GtkBitset *set)
{
  guint64 hash = 14695981039346656037ull;
  GtkBitsetIter iter;
  guint position;

  for (gboolean more = gtk_bitset_iter_init_first (&iter, set, &position);
       more;
       more = gtk_bitset_iter_next (&iter, &position))
    hash = (hash ^ position) * 1099511628211ull;

  return hash;
}

/* Zoomed out, names are drawn unscaled over their boxes, as many as fit
 * without overlapping: first those of the selected, hovered and troubled
 * steps, then those of the steps a proposal adds, then the others in the
 * workflow's order; then the conditions, at the middle of their edges.
 * They are placed over the whole workflow, not only the view, so that
 * panning shows the same names and the tiles can keep them; this is done
 * again only when what decides it changes, and then only the tiles whose
 * names differ are drawn again. */
static void
ensure_placement (SkCanvas  *self,
                  GtkBitset *selected)
{
  SkCanvasTiles *tiles = self->tiles;
  gboolean dark = is_dark ();
  GdkRGBA text = dark ? rgba (0xffffff, 1) : rgba (0x241f31, 1);
  GdkRGBA error = rgba (ERROR_COLOR, 1);
  Placer placer;
  guint64 key = 14695981039346656037ull;
  guint64 values[6];
  GHashTableIter iter;
  gpointer value;

  values[0] = (guint64) (self->zoom * 1e9);
  values[1] = tiles->names_serial;
  values[2] = GPOINTER_TO_SIZE (self->hover.node);
  values[3] = hash_bitset (selected);
  values[4] = GPOINTER_TO_SIZE (self->proposal);
  values[5] = self->items->len;
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    key = (key ^ values[i]) * 1099511628211ull;

  if (tiles->placement_valid && key == tiles->placement_key)
    return;

  _sk_canvas_index_ensure (self);
  g_array_set_size (tiles->placed, 0);
  placer.placed = tiles->placed;
  placer.cells = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_array_unref);

  for (guint pass = 0; pass < 2; pass++)
    {
      for (guint i = 0; i < self->items->len; i++)
        {
          SkCanvasItem *item = g_ptr_array_index (self->items, i);
          gboolean problem = node_has_problem (self, item->node);
          gboolean first = problem || item->node == self->hover.node || gtk_bitset_contains (selected, i);
          gboolean removed = self->proposal != NULL && removal_accepted (self->proposal, sk_node_get_id (item->node));

          if (first == (pass == 0) && !item->moving)
            place_name (self, &placer, item, problem || removed ? &error : &text, removed, FALSE);
        }

      for (guint i = 0; pass == 0 && self->proposal != NULL && i < self->proposal->steps->len; i++)
        {
          ProposalStep *step = g_ptr_array_index (self->proposal->steps, i);
          GdkRGBA accent = accent_color (step->accepted ? 1 : REJECTED_ALPHA);

          if (step->kind == MARK_ADDED)
            place_name (self, &placer, step->item, &accent, FALSE, TRUE);
        }
    }

  for (guint k = 0; k < tiles->edges->len; k++)
    {
      const SkCanvasEdge *edge = &g_array_index (tiles->edges, SkCanvasEdge, k);
      SkCanvasItem *from = g_ptr_array_index (self->items, edge->from);
      SkCanvasItem *to = g_ptr_array_index (self->items, edge->to);
      const char * const *priors = sk_node_get_priors (to->node);
      SkCanvasPlaced placed = { NULL, };
      double mx, my;

      if (from->moving || to->moving || edge_hidden (self, from, to))
        continue;
      placed.layout = condition_layout (self, to, priors[edge->prior]);
      if (placed.layout == NULL)
        continue;
      _sk_canvas_cubic_point (edge->p, SK_CANVAS_CONDITION_POSITION, &mx, &my);
      placed.rect = condition_pill (placed.layout, mx * self->zoom, my * self->zoom);
      if (!placer_free_room (&placer, &placed.rect))
        continue;
      placed.item = to;
      placed.condition = TRUE;
      placer_add (&placer, &placed);
    }

  g_hash_table_unref (placer.cells);
  tiles->placement_key = key;
  tiles->placement_valid = TRUE;

  g_hash_table_iter_init (&iter, tiles->tiles);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      SkCanvasTile *tile = value;

      if (tile_names_hash (self, tile->tx, tile->ty) != tile->names_hash)
        g_clear_pointer (&tile->node, gsk_render_node_unref);
    }
}

/* The names and conditions placed over the tile at (@tx, @ty), in the
 * model scaled by the zoom. */
static void
draw_placed (SkCanvas    *self,
             GtkSnapshot *snapshot,
             int          tx,
             int          ty)
{
  graphene_rect_t tile = GRAPHENE_RECT_INIT (tx * TILE_SIZE, ty * TILE_SIZE, TILE_SIZE, TILE_SIZE);
  GdkRGBA pill = is_dark () ? rgba (0x242424, 0.75f) : rgba (0xffffff, 0.75f);
  GArray *placed = self->tiles->placed;

  for (guint i = 0; i < placed->len; i++)
    {
      const SkCanvasPlaced *name = &g_array_index (placed, SkCanvasPlaced, i);
      const graphene_rect_t *rect = &name->rect;

      if (!graphene_rect_intersection (rect, &tile, NULL))
        continue;

      if (name->condition)
        {
          draw_outlined_pill (snapshot, name->layout, rect);
          continue;
        }

      append_rounded_fill (snapshot, rect, 4, &pill);
      append_layout_at (snapshot, name->layout, rect->origin.x + 4, rect->origin.y + 1, &name->color);

      /* A removed step's name is struck here too, since it covers the box. */
      if (name->struck)
        {
          PangoLayoutIter *iter = pango_layout_get_iter (name->layout);

          do
            {
              double sx, sy, sw;

              strike_line (iter, &sx, &sy, &sw);
              gtk_snapshot_append_color (snapshot, &name->color,
                                         &GRAPHENE_RECT_INIT (rect->origin.x + 4 + sx, rect->origin.y + 1 + sy - 0.75,
                                                              sw, 1.5));
            }
          while (pango_layout_iter_next_line (iter));
          pango_layout_iter_free (iter);
        }
    }
}

/* Drawing a tile ---------------------------------------------------------- */

/* A new surface for a tile, or a part of one @width by @height: opaque,
 * and for the cairo renderer without alpha, so that cairo copies it rather
 * than blends it. */
static cairo_surface_t *
tile_surface (SkCanvas *self,
              int       width,
              int       height)
{
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  cairo_format_t format = _sk_canvas_cairo_renderer (self) ? CAIRO_FORMAT_RGB24 : CAIRO_FORMAT_ARGB32;
  cairo_surface_t *surface = cairo_image_surface_create (format, width * scale, height * scale);

  cairo_surface_set_device_scale (surface, scale, scale);
  return surface;
}

/* The model rectangle of the tile at (@tx, @ty). */
static graphene_rect_t
tile_model_rect (SkCanvas *self,
                 int       tx,
                 int       ty)
{
  double zoom = self->zoom;

  return GRAPHENE_RECT_INIT (tx * TILE_SIZE / zoom, ty * TILE_SIZE / zoom,
                             TILE_SIZE / zoom, TILE_SIZE / zoom);
}

/* The background, its dot grid and the connections. */
static cairo_surface_t *
build_tile_base (SkCanvas *self,
                 int       tx,
                 int       ty)
{
  gboolean dark = is_dark ();
  GdkRGBA background = dark ? rgba (0x242424, 1) : rgba (0xfafafa, 1);
  GdkRGBA dot = dark ? rgba (0xffffff, 0.08f) : rgba (0x000000, 0.08f);
  graphene_rect_t model = tile_model_rect (self, tx, ty);
  double margin = 12 + 2 / self->zoom;
  g_autoptr(GArray) edges = g_array_new (FALSE, FALSE, sizeof (guint));
  cairo_surface_t *surface = tile_surface (self, TILE_SIZE, TILE_SIZE);
  graphene_rect_t near;
  cairo_t *cr = cairo_create (surface);

  gdk_cairo_set_source_rgba (cr, &background);
  cairo_paint (cr);

  /* A sparse dot grid gives panning and zooming something to follow. It
   * keeps to the model's origin, as the steps do. */
  cairo_translate (cr, -tx * TILE_SIZE, -ty * TILE_SIZE);
  if (self->zoom >= 0.5)
    {
      double step = 40 * self->zoom;
      double x0 = ceil (tx * TILE_SIZE / step - 0.5) * step;
      double y0 = ceil (ty * TILE_SIZE / step - 0.5) * step;

      gdk_cairo_set_source_rgba (cr, &dot);
      for (double x = x0; x < (tx + 1) * TILE_SIZE + 1; x += step)
        for (double y = y0; y < (ty + 1) * TILE_SIZE + 1; y += step)
          cairo_rectangle (cr, round (x) - 1, round (y) - 1, 2, 2);
      cairo_fill (cr);
    }
  cairo_scale (cr, self->zoom, self->zoom);

  /* The margin keeps arrowheads and line ends at the tile's sides whole. */
  graphene_rect_inset_r (&model, -margin, -margin, &near);
  _sk_canvas_index_edges (self, &near, edges);
  stroke_edges (self, cr, edges, &near);
  if (self->proposal != NULL)
    draw_proposal_edges (self, cr, &near);

  cairo_destroy (cr);
  cairo_surface_flush (surface);

  return surface;
}

/* What the tile draws over its base, the labels along connections, the
 * steps and the names, in the tile's pixels; and the signatures of the
 * steps it drew. */
static GskRenderNode *
tile_content (SkCanvas     *self,
              SkCanvasTile *tile,
              GtkBitset    *selected,
              gboolean      detail,
              gboolean      names)
{
  graphene_rect_t model = tile_model_rect (self, tile->tx, tile->ty);
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (guint));
  GtkSnapshot *snapshot;

  g_array_set_size (tile->signatures, 0);

  snapshot = gtk_snapshot_new ();
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (-tile->tx * TILE_SIZE, -tile->ty * TILE_SIZE));
  gtk_snapshot_save (snapshot);
  gtk_snapshot_scale (snapshot, self->zoom, self->zoom);

  /* Labels along connections are wider than the connections' boxes. */
  if (detail)
    {
      g_autoptr(GArray) edges = g_array_new (FALSE, FALSE, sizeof (guint));
      graphene_rect_t labels;

      graphene_rect_inset_r (&model, -160, -40, &labels);
      _sk_canvas_index_edges (self, &labels, edges);
      draw_edge_labels (self, snapshot, edges);
    }

  _sk_canvas_index_items (self, &model, items);
  for (guint k = 0; k < items->len; k++)
    {
      guint i = g_array_index (items, guint, k);
      SkCanvasItem *item = g_ptr_array_index (self->items, i);
      gboolean is_selected = gtk_bitset_contains (selected, i);
      SkCanvasTileSignature sig = { item, i, item_signature (self, item, is_selected) };

      if (item->moving)
        continue;
      g_array_append_val (tile->signatures, sig);
      if (detail)
        draw_node (self, snapshot, item, is_selected, FALSE);
      else
        draw_node_flat (self, snapshot, item, is_selected);
    }

  gtk_snapshot_restore (snapshot);

  if (names)
    {
      draw_placed (self, snapshot, tile->tx, tile->ty);
      tile->names_hash = tile_names_hash (self, tile->tx, tile->ty);
    }

  return gtk_snapshot_free_to_node (snapshot);
}

/* Draws @content over the base into the tile's picture, in the rectangle
 * @x, @y, @width by @height of its pixels only. */
static void
draw_tile_picture (SkCanvas      *self,
                   SkCanvasTile  *tile,
                   GskRenderNode *content,
                   int            x,
                   int            y,
                   int            width,
                   int            height)
{
  cairo_t *cr = cairo_create (tile->picture);

  cairo_rectangle (cr, x, y, width, height);
  cairo_clip (cr);
  cairo_set_source_surface (cr, tile->base, 0, 0);
  cairo_set_operator (cr, CAIRO_OPERATOR_SOURCE);
  cairo_paint (cr);
  cairo_set_operator (cr, CAIRO_OPERATOR_OVER);
  if (content != NULL)
    gsk_render_node_draw (content, cr);
  cairo_destroy (cr);

  g_clear_pointer (&tile->node, gsk_render_node_unref);
  tile->node = _sk_canvas_picture_node (self, tile->picture, TILE_SIZE, TILE_SIZE);
}

static void
build_tile_steps (SkCanvas     *self,
                  SkCanvasTile *tile,
                  GtkBitset    *selected,
                  gboolean      detail,
                  gboolean      names)
{
  g_autoptr(GskRenderNode) content = tile_content (self, tile, selected, detail, names);

  g_clear_pointer (&tile->picture, cairo_surface_destroy);
  tile->picture = tile_surface (self, TILE_SIZE, TILE_SIZE);
  draw_tile_picture (self, tile, content, 0, 0, TILE_SIZE, TILE_SIZE);
}

/* When only some steps of a tile look different, as when a run changes
 * their states, only the part of the tile that their bounds cover is drawn
 * again, with all that the tile draws there, into its picture: drawing all
 * of the tile costs cairo far more. Returns %FALSE when the tile must be
 * drawn whole. */
static gboolean
patch_tile (SkCanvas     *self,
            SkCanvasTile *tile,
            GtkBitset    *selected,
            gboolean      detail,
            gboolean      names)
{
  g_autoptr(GskRenderNode) content = NULL;
  graphene_rect_t dirty;
  gboolean any = FALSE;
  int x0, y0, x1, y1;

  if (tile->base == NULL || tile->picture == NULL)
    return FALSE;

  for (guint i = 0; i < tile->signatures->len; i++)
    {
      SkCanvasTileSignature *sig = &g_array_index (tile->signatures, SkCanvasTileSignature, i);
      graphene_rect_t box;

      if (sig->signature == item_signature (self, sig->item, gtk_bitset_contains (selected, sig->position)))
        continue;

      /* What a step draws stays inside its bounds. */
      _sk_canvas_item_bounds (self, sig->item, &box);
      if (any)
        graphene_rect_union (&dirty, &box, &dirty);
      else
        dirty = box;
      any = TRUE;
    }

  if (!any)
    return TRUE;

  x0 = MAX (0, (int) floor (dirty.origin.x * self->zoom - tile->tx * TILE_SIZE));
  y0 = MAX (0, (int) floor (dirty.origin.y * self->zoom - tile->ty * TILE_SIZE));
  x1 = MIN (TILE_SIZE, (int) ceil ((dirty.origin.x + dirty.size.width) * self->zoom - tile->tx * TILE_SIZE));
  y1 = MIN (TILE_SIZE, (int) ceil ((dirty.origin.y + dirty.size.height) * self->zoom - tile->ty * TILE_SIZE));
  if (x1 <= x0 || y1 <= y0)
    return FALSE;

  /* The picture changes in place: the tile's node made of it before is
   * not drawn again once the tile has a new one, and cairo copies a
   * surface that a cairo node shows before the surface changes. */
  content = tile_content (self, tile, selected, detail, names);
  draw_tile_picture (self, tile, content, x0, y0, x1 - x0, y1 - y0);

  return TRUE;
}

/* Draws the tiles that the view meets, where the view puts them: at whole
 * pixels, so that they are copied, not resampled. */
static void
draw_tiles (SkCanvas    *self,
            GtkSnapshot *snapshot,
            GtkBitset   *selected,
            gboolean     detail,
            gboolean     names)
{
  SkCanvasTiles *tiles = self->tiles;
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  gboolean dark = is_dark ();
  double ox = round (self->offset_x * scale) / scale;
  double oy = round (self->offset_y * scale) / scale;
  int tx0 = (int) floor (-ox / TILE_SIZE);
  int ty0 = (int) floor (-oy / TILE_SIZE);
  int tx1 = (int) floor ((width - ox - 0.001) / TILE_SIZE);
  int ty1 = (int) floor ((height - oy - 0.001) / TILE_SIZE);

  if (tiles->zoom != self->zoom || tiles->scale != scale || tiles->dark != dark ||
      tiles->cairo != _sk_canvas_cairo_renderer (self))
    {
      g_hash_table_remove_all (tiles->tiles);
      tiles->placement_valid = FALSE;
      tiles->zoom = self->zoom;
      tiles->scale = scale;
      tiles->dark = dark;
      tiles->cairo = _sk_canvas_cairo_renderer (self);
    }

  if (names)
    ensure_placement (self, selected);

  tiles->frame++;
  for (int ty = ty0; ty <= ty1; ty++)
    for (int tx = tx0; tx <= tx1; tx++)
      {
        SkCanvasTile *tile = _sk_canvas_tiles_lookup (self, tx, ty);

        if (tile == NULL)
          {
            tile = g_new0 (SkCanvasTile, 1);
            tile->tx = tx;
            tile->ty = ty;
            tile->signatures = g_array_new (FALSE, FALSE, sizeof (SkCanvasTileSignature));
            _sk_canvas_tiles_insert (self, tile);
          }
        if (tile->node == NULL ||
            (!tile_valid (self, tile, selected) && !patch_tile (self, tile, selected, detail, names)))
          {
            if (tile->base == NULL)
              tile->base = build_tile_base (self, tx, ty);
            build_tile_steps (self, tile, selected, detail, names);
          }
        tile->used = tiles->frame;

        gtk_snapshot_save (snapshot);
        gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (ox + tx * TILE_SIZE, oy + ty * TILE_SIZE));
        gtk_snapshot_append_node (snapshot, tile->node);
        gtk_snapshot_restore (snapshot);
      }

  _sk_canvas_tiles_trim (self, (guint) ((tx1 - tx0 + 1) * (ty1 - ty0 + 1)) + TILES_KEPT);

  /* Out of view, a tile keeps its picture only, half of its memory; its
   * base is drawn again if a step in it changes after it comes back. */
  {
    GHashTableIter iter;
    gpointer value;

    g_hash_table_iter_init (&iter, tiles->tiles);
    while (g_hash_table_iter_next (&iter, NULL, &value))
      if (((SkCanvasTile *) value)->used != tiles->frame)
        g_clear_pointer (&((SkCanvasTile *) value)->base, cairo_surface_destroy);
  }
}

/* Over the tiles ----------------------------------------------------------- */

/* Piece @piece of @n_pieces of the connection @p, in model coordinates:
 * straight zoomed far out, as stroke_edges() draws it, else a part of the
 * curve. */
static void
moving_edge_piece (SkCanvas     *self,
                   const double  p[8],
                   guint         piece,
                   guint         n_pieces,
                   double        part[8])
{
  double t0 = (double) piece / n_pieces;
  double t1 = (double) (piece + 1) / n_pieces;
  double head[8];

  if (self->zoom < CURVE_MIN_ZOOM)
    {
      part[0] = p[0] + (p[6] - p[0]) * t0;
      part[1] = p[1] + (p[7] - p[1]) * t0;
      part[6] = p[0] + (p[6] - p[0]) * t1;
      part[7] = p[1] + (p[7] - p[1]) * t1;
      part[2] = part[4] = part[0];
      part[3] = part[5] = part[1];
    }
  else if (n_pieces == 1)
    memcpy (part, p, sizeof head);
  else if (piece == 0)
    cubic_split (p, t1, TRUE, part);
  else
    {
      cubic_split (p, t1, TRUE, head);
      cubic_split (head, t0 / t1, FALSE, part);
    }
}

/* The whole widget pixels that a piece's stroke covers, within the view:
 * the box of its control points, which holds the curve, widened by half
 * the line and a pixel of antialiasing, and for the last piece the
 * arrowhead. Returns %FALSE when none is in view. */
static gboolean
moving_edge_piece_box (SkCanvas     *self,
                       const double  p[8],
                       const double  part[8],
                       gboolean      last,
                       double        box[4])
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  double pad = MAX (1.5, 1.0 / self->zoom) * self->zoom / 2 + 1;
  double x0 = MIN (MIN (part[0], part[2]), MIN (part[4], part[6]));
  double y0 = MIN (MIN (part[1], part[3]), MIN (part[5], part[7]));
  double x1 = MAX (MAX (part[0], part[2]), MAX (part[4], part[6]));
  double y1 = MAX (MAX (part[1], part[3]), MAX (part[5], part[7]));

  /* As path_arrow() draws it. */
  if (last && self->zoom >= CURVE_MIN_ZOOM)
    {
      double angle = atan2 (p[7] - p[5], p[6] - p[4]);

      for (int side = -1; side <= 1; side += 2)
        {
          double ax = p[6] - 9 * cos (angle + side * 0.45);
          double ay = p[7] - 9 * sin (angle + side * 0.45);

          x0 = MIN (x0, ax);
          y0 = MIN (y0, ay);
          x1 = MAX (x1, ax);
          y1 = MAX (y1, ay);
        }
    }

  _sk_canvas_model_to_widget (self, x0, y0, &x0, &y0);
  _sk_canvas_model_to_widget (self, x1, y1, &x1, &y1);
  box[0] = MAX (0, floor (x0 - pad));
  box[1] = MAX (0, floor (y0 - pad));
  box[2] = MIN (width, ceil (x1 + pad));
  box[3] = MIN (height, ceil (y1 + pad));

  return box[2] > box[0] && box[3] > box[1];
}

/* How many pieces the GL renderer draws a connection in: each piece is a
 * texture made in every frame, which costs it about as much as this many
 * pixels of texture do, so a connection is cut where that saves more
 * pixels than the textures cost. */
#define MOVING_EDGE_PIECE_COST 2000.0

static guint
moving_edge_pieces (SkCanvas     *self,
                    const double  p[8])
{
  guint best = 1;
  double best_cost = G_MAXDOUBLE;

  for (guint n_pieces = 1; n_pieces <= MOVING_EDGE_PIECES; n_pieces *= 2)
    {
      double cost = n_pieces * MOVING_EDGE_PIECE_COST;

      for (guint piece = 0; piece < n_pieces; piece++)
        {
          double part[8], box[4];

          moving_edge_piece (self, p, piece, n_pieces, part);
          if (moving_edge_piece_box (self, p, part, piece + 1 == n_pieces, box))
            cost += (box[2] - box[0]) * (box[3] - box[1]);
        }
      if (cost < best_cost)
        {
          best = n_pieces;
          best_cost = cost;
        }
    }

  return best;
}

/* The connections of the dragged steps, in widget coordinates, as
 * draw_overlay_edges() draws, in cairo nodes no larger than the view and
 * the connections need, since the GL renderer draws a cairo node into a
 * texture of its size in every frame. */
static void
draw_moving_edges (SkCanvas    *self,
                   GtkSnapshot *snapshot)
{
  SkCanvasTiles *tiles = self->tiles;
  GdkRGBA color = is_dark () ? rgba (0x9a9996, 1) : rgba (0x77767b, 1);
  double margin = 12 + 2 / self->zoom;
  gboolean cairo_renderer = _sk_canvas_cairo_renderer (self);
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  graphene_rect_t view, near;

  if (tiles->moving_edges == NULL)
    {
      _sk_canvas_index_ensure (self);
      tiles->moving_edges = g_ptr_array_new ();
      for (guint k = 0; k < tiles->edges->len; k++)
        {
          const SkCanvasEdge *edge = &g_array_index (tiles->edges, SkCanvasEdge, k);
          SkCanvasItem *from = g_ptr_array_index (self->items, edge->from);
          SkCanvasItem *to = g_ptr_array_index (self->items, edge->to);

          if ((from->moving || to->moving) && !edge_hidden (self, from, to))
            {
              g_ptr_array_add (tiles->moving_edges, from);
              g_ptr_array_add (tiles->moving_edges, to);
            }
        }
    }

  _sk_canvas_visible_model_rect (self, &view);
  graphene_rect_inset_r (&view, -margin, -margin, &near);
  for (guint k = 0; k + 1 < tiles->moving_edges->len; k += 2)
    {
      guint n_pieces;
      double p[8];

      _sk_canvas_edge_route (g_ptr_array_index (tiles->moving_edges, k),
                             g_ptr_array_index (tiles->moving_edges, k + 1), p);
      if (!_sk_canvas_edge_visible (p, &near))
        continue;

      /* For the GL renderer a long connection is cut into pieces, each in
       * a node of its own box, which together cover far less than the
       * connection's box; the cairo renderer only replays the drawing, so
       * one node costs it less. */
      n_pieces = cairo_renderer ? 1 : moving_edge_pieces (self, p);
      for (guint piece = 0; piece < n_pieces; piece++)
        {
          gboolean last = piece + 1 == n_pieces;
          double part[8], box[4];
          double x0, y0, x1, y1;
          cairo_surface_t *surface;
          cairo_t *cr;

          moving_edge_piece (self, p, piece, n_pieces, part);
          if (!moving_edge_piece_box (self, p, part, last, box))
            continue;
          x0 = box[0];
          y0 = box[1];
          x1 = box[2];
          y1 = box[3];

          /* The GL renderer keeps what it drew of a cairo node by the
           * node's address, which a node of the next frame may take over,
           * so for it each piece is drawn here into a texture of its own. */
          if (cairo_renderer)
            {
              cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (x0, y0, x1 - x0, y1 - y0));
              surface = NULL;
            }
          else
            {
              surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) (x1 - x0) * scale,
                                                    (int) (y1 - y0) * scale);
              cairo_surface_set_device_scale (surface, scale, scale);
              cr = cairo_create (surface);
              cairo_translate (cr, -x0, -y0);
            }
          cairo_translate (cr, self->offset_x, self->offset_y);
          cairo_scale (cr, self->zoom, self->zoom);
          cairo_set_line_width (cr, MAX (1.5, 1.0 / self->zoom));
          cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
          gdk_cairo_set_source_rgba (cr, &color);
          cairo_move_to (cr, part[0], part[1]);
          if (self->zoom < CURVE_MIN_ZOOM)
            cairo_line_to (cr, part[6], part[7]);
          else
            {
              cairo_curve_to (cr, part[2], part[3], part[4], part[5], part[6], part[7]);
              /* The arrowhead belongs to the end of the whole edge. */
              if (last)
                path_arrow (cr, p);
            }
          cairo_stroke (cr);
          cairo_destroy (cr);

          if (surface != NULL)
            {
              g_autoptr(GskRenderNode) node = _sk_canvas_picture_node (self, surface,
                                                                        (int) (x1 - x0), (int) (y1 - y0));

              gtk_snapshot_save (snapshot);
              gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x0, y0));
              gtk_snapshot_append_node (snapshot, node);
              gtk_snapshot_restore (snapshot);
              cairo_surface_destroy (surface);
            }
        }
    }
}

/* The dragged steps, in model coordinates. */
static void
draw_moving (SkCanvas    *self,
             GtkSnapshot *snapshot,
             GtkBitset   *selected,
             gboolean     detail)
{
  graphene_rect_t view;

  _sk_canvas_visible_model_rect (self, &view);
  for (guint i = 0; i < self->items->len; i++)
    {
      SkCanvasItem *item = g_ptr_array_index (self->items, i);
      graphene_rect_t box;

      if (!item->moving)
        continue;
      _sk_canvas_item_bounds (self, item, &box);
      if (!graphene_rect_intersection (&box, &view, NULL))
        continue;
      if (detail)
        draw_node (self, snapshot, item, gtk_bitset_contains (selected, i), TRUE);
      else
        draw_node_flat (self, snapshot, item, gtk_bitset_contains (selected, i));
    }
}

/* The sliding segments of the steps at work in view. */
static void
draw_busy (SkCanvas              *self,
           GtkSnapshot           *snapshot,
           const graphene_rect_t *view)
{
  if (self->n_busy == 0)
    return;

  for (guint i = 0; i < self->items->len; i++)
    {
      SkCanvasItem *item = g_ptr_array_index (self->items, i);
      graphene_rect_t box;

      if (!item->busy || item->moving)
        continue;
      _sk_canvas_item_bounds (self, item, &box);
      if (graphene_rect_intersection (&box, view, NULL))
        draw_busy_bar (self, snapshot, item);
    }
}

/* How many names the frame shows, for the tests. */
static guint
count_names (SkCanvas              *self,
             const graphene_rect_t *view,
             gboolean               detail,
             gboolean               names)
{
  guint count = 0;

  if (detail)
    {
      for (guint i = 0; i < self->items->len; i++)
        {
          SkCanvasItem *item = g_ptr_array_index (self->items, i);
          graphene_rect_t box;

          _sk_canvas_item_bounds (self, item, &box);
          if (graphene_rect_intersection (&box, view, NULL))
            count++;
        }
    }
  else if (names)
    {
      GArray *placed = self->tiles->placed;
      graphene_rect_t shown = GRAPHENE_RECT_INIT (-self->offset_x, -self->offset_y,
                                                  gtk_widget_get_width (GTK_WIDGET (self)),
                                                  gtk_widget_get_height (GTK_WIDGET (self)));

      for (guint i = 0; i < placed->len; i++)
        {
          const SkCanvasPlaced *name = &g_array_index (placed, SkCanvasPlaced, i);

          if (!name->condition && !name->proposed &&
              graphene_rect_intersection (&name->rect, &shown, NULL))
            count++;
        }
    }

  return count;
}

void
_sk_canvas_snapshot (GtkWidget   *widget,
                     GtkSnapshot *snapshot)
{
  SkCanvas *self = SK_CANVAS (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  gboolean dark = is_dark ();
  GdkRGBA background = dark ? rgba (0x242424, 1) : rgba (0xfafafa, 1);
  GdkRGBA dot = dark ? rgba (0xffffff, 0.08f) : rgba (0x000000, 0.08f);
  g_autoptr(GtkBitset) selected = NULL;
  graphene_rect_t view;
  gboolean detail = self->zoom >= DETAIL_MIN_ZOOM;
  gboolean names = !detail && self->zoom >= NAME_MIN_ZOOM;
  gboolean buttons;

  self->names_painted = 0;
  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));

  /* With a workflow, the tiles hold the background. */
  if (self->project == NULL || width <= 0 || height <= 0)
    gtk_snapshot_append_color (snapshot, &background, &GRAPHENE_RECT_INIT (0, 0, width, height));

  /* A sparse dot grid gives panning and zooming something to follow. */
  if ((self->project == NULL || width <= 0 || height <= 0) && self->zoom >= 0.5)
    {
      double step = 40 * self->zoom;
      double x0 = fmod (self->offset_x, step);
      double y0 = fmod (self->offset_y, step);

      if (x0 < 0)
        x0 += step;
      if (y0 < 0)
        y0 += step;
      for (double x = x0; x < width; x += step)
        for (double y = y0; y < height; y += step)
          gtk_snapshot_append_color (snapshot, &dot, &GRAPHENE_RECT_INIT (x - 1, y - 1, 2, 2));
    }

  if (self->project == NULL || width <= 0 || height <= 0)
    {
      gtk_snapshot_pop (snapshot);
      return;
    }

  _sk_canvas_visible_model_rect (self, &view);

  if (self->proposal != NULL && !self->proposal->resolved)
    proposal_resolve (self);

  /* Item i is the selection model's item i. */
  if (self->selection != NULL)
    selected = gtk_selection_model_get_selection (self->selection);
  else
    selected = gtk_bitset_new_empty ();

  draw_tiles (self, snapshot, selected, detail, names);
  if (self->drag == SK_CANVAS_DRAG_MOVE)
    draw_moving_edges (self, snapshot);
  draw_overlay_edges (self, snapshot);

  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (self->offset_x, self->offset_y));
  gtk_snapshot_scale (snapshot, self->zoom, self->zoom);

  if (self->drag == SK_CANVAS_DRAG_MOVE)
    draw_moving (self, snapshot, selected, detail);
  if (detail)
    draw_busy (self, snapshot, &view);

  if (self->proposal != NULL)
    {
      draw_added_steps (self, snapshot, &view, detail);
      gtk_snapshot_restore (snapshot);

      /* The proposal's marks are drawn for the view as it is. */
      if (self->proposal_cache != NULL &&
          (self->proposal_key[0] != self->offset_x || self->proposal_key[1] != self->offset_y ||
           self->proposal_key[2] != self->zoom))
        g_clear_pointer (&self->proposal_cache, gsk_render_node_unref);
      if (self->proposal_cache == NULL)
        {
          self->proposal_cache = build_proposal_layer (self, &view);
          self->proposal_key[0] = self->offset_x;
          self->proposal_key[1] = self->offset_y;
          self->proposal_key[2] = self->zoom;
        }
      gtk_snapshot_append_node (snapshot, self->proposal_cache);

      gtk_snapshot_save (snapshot);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (self->offset_x, self->offset_y));
      gtk_snapshot_scale (snapshot, self->zoom, self->zoom);
      if (detail)
        draw_proposal_badges (self, snapshot, &view);
    }

  if (self->drag == SK_CANVAS_DRAG_RUBBER)
    draw_rubber_band (self, snapshot);

  gtk_snapshot_restore (snapshot);

  self->names_painted = count_names (self, &view, detail, names);

  if (self->problem_nodes != NULL || self->problem_edges != NULL)
    draw_problem_badges (self, snapshot, &view);

  buttons = self->zoom >= TASK_MIN_ZOOM && !run_going (self);
  if (buttons)
    {
      SkCanvasItem *focus = _sk_canvas_lookup_item (self, self->focus);
      SkCanvasItem *hover = _sk_canvas_lookup_item (self, self->hover.node);
      guint position;

      if (focus != NULL && _sk_canvas_item_position (self, focus->node, &position) &&
          run_button_shown (self, focus, gtk_bitset_contains (selected, position)))
        draw_run_button (self, snapshot, focus);
      if (hover != NULL && hover != focus && run_button_shown (self, hover, FALSE))
        draw_run_button (self, snapshot, hover);
    }

  gtk_snapshot_pop (snapshot);
}
