/* sk-canvas-private.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "sk-canvas.h"

G_BEGIN_DECLS

/* How far along its edge a condition's label sits, from the prior: where
 * the edges from one step have parted. */
#define SK_CANVAS_CONDITION_POSITION 0.7

#define SK_CANVAS_NODE_WIDTH  168.0
#define SK_CANVAS_NODE_HEIGHT  60.0
#define SK_CANVAS_MIN_ZOOM      0.2
/* Zooming out stops at SK_CANVAS_MIN_ZOOM, or lower when the workflow
 * needs it to fit, but never below this. */
#define SK_CANVAS_LEAST_ZOOM    0.001
#define SK_CANVAS_MAX_ZOOM      4.0
#define SK_CANVAS_ZOOM_STEP     1.2
#define SK_CANVAS_GRID_DX     220.0
#define SK_CANVAS_GRID_DY     110.0

/* A chat's proposal as painted: what sk-canvas-paint.c works out once from
 * the changeset, and again when the workflow changes under it. */
typedef struct _SkCanvasProposal SkCanvasProposal;

/* The label of a condition on a connection, and the condition it shows. */
typedef struct
{
  char        *condition;
  PangoLayout *layout;
} SkCanvasConditionLabel;

/* What the canvas shows of one step, in model coordinates (the centre of
 * the step's box). */
typedef struct
{
  SkNode      *node;
  double       x;
  double       y;
  PangoLayout *layout;
  gboolean     busy;

  /* sk-canvas-paint.c's caches: the task's first line, the name as drawn
   * zoomed out, and what the step's last run left for its successors. */
  PangoLayout *task_layout;
  PangoLayout *label_layout;
  PangoLayout *flow_layout;
  char        *flow_text;
  gint64       output_size;

  /* Its control flow as painted: the badge that names what kind of step it
   * is, for the kinds in control_kinds, and the labels of the conditions
   * on the connections from its priors, SkCanvasConditionLabels by prior
   * id. Both are checked against the step when drawn, since its "skele"
   * member changes without a property telling. */
  PangoLayout *control_layout;
  guint        control_kinds;
  GHashTable  *condition_labels;

  /* For the tiles: a count of the step's changes, which a tile compares
   * with what it drew, and a hash of its control flow, whose change redraws
   * every tile, since conditions are drawn along connections. A step being
   * dragged is left out of the tiles and drawn over them. */
  guint        serial;
  guint        flow_key;
  guint        moving : 1;
} SkCanvasItem;

/* A connection as the tiles and the grid know it: its steps' positions in
 * the workflow, the index of the prior among the step's priors, its curve
 * and the box around it, in model coordinates. */
typedef struct
{
  guint            from;
  guint            to;
  guint            prior;
  double           p[8];
  graphene_rect_t  bounds;
} SkCanvasEdge;

/* What a tile drew of a step, to tell whether it must be drawn again. */
typedef struct
{
  SkCanvasItem *item;
  guint         position;
  guint         signature;
} SkCanvasTileSignature;

/* A square of the picture at one zoom, TILE_SIZE pixels wide, at tx, ty in
 * the model scaled by the zoom: its base, the background and the
 * connections, which change only with the workflow's geometry, and the
 * whole picture, the base with the steps and labels over it, which changes
 * with a step's state or the selection, as a surface and as a node. The
 * picture is opaque, so that showing it is a copy. */
typedef struct
{
  gint64         key;
  int            tx;
  int            ty;
  cairo_surface_t *base;
  cairo_surface_t *picture;
  GskRenderNode *node;
  GArray        *signatures;
  guint          names_hash;
  guint64        used;
} SkCanvasTile;

/* A name or a condition drawn unscaled zoomed out, where it overlaps no
 * other: its box in the model scaled by the zoom, so that it is the same
 * wherever the view is. */
typedef struct
{
  SkCanvasItem    *item;
  PangoLayout     *layout;
  graphene_rect_t  rect;
  GdkRGBA          color;
  guint            condition : 1;
  guint            proposed : 1;
  guint            struck : 1;
} SkCanvasPlaced;

typedef struct
{
  /* The grid: cells of @cell model units from (x0, y0), holding the
   * positions of the steps whose centres are in them and the indices of
   * the connections whose boxes meet them; long connections aside. */
  gboolean     index_valid;
  GArray      *edges;
  GArray      *long_edges;
  double       cell;
  double       x0;
  double       y0;
  int          cols;
  int          rows;
  guint        n_cells;
  GArray     **item_cells;
  GArray     **edge_cells;
  GArray      *item_stamps;
  GArray      *edge_stamps;
  guint        stamp;

  /* The tiles, by position, and what they were drawn for. */
  GHashTable  *tiles;
  double       zoom;
  int          scale;
  gboolean     dark;
  gboolean     cairo;
  guint64      frame;

  /* The names placed zoomed out, and what they were placed for. */
  GArray      *placed;
  guint64      placement_key;
  gboolean     placement_valid;
  guint        names_serial;

  /* The connections of the dragged steps, drawn over the tiles with them:
   * pairs of items, from and to. */
  GPtrArray   *moving_edges;
} SkCanvasTiles;

/* Which tool owns the sequence of the primary button's drag. */
typedef enum
{
  SK_CANVAS_DRAG_NONE,
  SK_CANVAS_DRAG_PENDING_MOVE,
  SK_CANVAS_DRAG_MOVE,
  SK_CANVAS_DRAG_RUBBER,
} SkCanvasDrag;

/* Moving the selected steps: where each was when the drag began. A step
 * removed during the drag keeps its slot with a %NULL node. */
typedef struct
{
  GArray *origins;
} SkCanvasMoveTool;

/* Selecting the steps inside a rectangle, in widget coordinates: from
 * where the drag began to where the pointer is. */
typedef struct
{
  double   x0;
  double   y0;
  double   x1;
  double   y1;
  guint    extend : 1;
} SkCanvasRubberBand;

/* Panning with the middle button. */
typedef struct
{
  double   offset_x;
  double   offset_y;
  guint    active : 1;
} SkCanvasPanTool;

/* Ctrl+click on a step, then on another, connects them. */
typedef struct
{
  SkNode  *source;
} SkCanvasConnectTool;

/* The pointer and the step under it. */
typedef struct
{
  SkNode  *node;
  double   x;
  double   y;
  guint    inside : 1;
} SkCanvasHoverTool;

struct _SkCanvas
{
  GtkWidget            parent_instance;

  /* Owned references */
  SkProject           *project;
  SkHistory           *history;
  GtkSelectionModel   *selection;
  GtkWidget           *popover;
  GCancellable        *layout_cancellable;
  PangoLayout         *state_layouts[SK_NODE_STATE_AWAITING_APPROVAL + 1];

  /* One SkCanvasItem per step, in the workflow's order, so an item's index
   * is its step's position in the project and in the selection model. */
  GPtrArray           *items;
  GHashTable          *by_node;

  /* Borrowed steps of the workflow: the one clicked last among the
   * selected ones, and a selected connection. */
  SkNode              *focus;
  SkNode              *edge_prior;
  SkNode              *edge_node;

  /* View transform: widget = model × zoom + offset. */
  double               zoom;
  double               offset_x;
  double               offset_y;

  /* Tools */
  SkCanvasDrag         drag;
  SkCanvasMoveTool     move;
  SkCanvasRubberBand   rubber;
  /* Where the button of the click under way went down, in widget pixels. */
  double               press_x;
  double               press_y;
  SkCanvasPanTool      pan;
  SkCanvasConnectTool  connect;
  SkCanvasHoverTool    hover;

  /* Animation of the steps at work */
  guint                tick_id;
  guint                n_busy;
  gint64               frame_time;

  /* Nesting of the canvas's own changes to the selection model, and a step
   * to select alone once the canvas has caught up with the workflow
   * (deferred_select; deferred_follow: follow someone else's change then). */
  guint                changing_selection;
  SkNode              *deferred_node;

  guint                fit_pending : 1;
  guint                auto_fit : 1;
  guint                arranging : 1;
  guint                owns_selection : 1;
  guint                deferred_select : 1;
  guint                deferred_follow : 1;

  /* Widgets over the canvas: the minimap, the find bar and the hint of
   * connect mode (sk-canvas-minimap.c, sk-canvas-find.c,
   * sk-canvas-overlays.c), and the last toast that offered Undo. */
  GtkWidget           *minimap;
  GtkWidget           *find_bar;
  GtkWidget           *find_entry;
  GtkWidget           *find_label;
  GtkWidget           *connect_hint;
  GPtrArray           *find_matches;
  guint                find_index;
  GskRenderNode       *minimap_cache;
  cairo_surface_t     *minimap_surface;
  GArray              *minimap_states;
  guint64              minimap_key;
  gpointer             undo_toast;

  /* Painting: the steps (ids) and connections ("prior\nstep" ids) marked
   * as having a problem, and how many names the last frame painted, which
   * the tests read. */
  GHashTable          *problem_nodes;
  GHashTable          *problem_edges;
  guint                names_painted;

  /* A chat's proposed changes, drawn over the workflow, and the picture of
   * their marks over the steps, kept until the view or they change. */
  SkChangeset         *changeset;
  SkCanvasProposal    *proposal;
  GskRenderNode       *proposal_cache;
  double               proposal_key[3];

  /* The picture of the workflow in tiles, and the grid over it
   * (sk-canvas-tiles.c). */
  SkCanvasTiles       *tiles;
};

/* Steps that are at work, running or having their code written, are
 * animated. */
static inline gboolean
_sk_canvas_state_is_busy (SkNodeState state)
{
  return state == SK_NODE_STATE_RUNNING || state == SK_NODE_STATE_WRITING_CODE;
}

/* sk-canvas.c: the widget and the workflow it observes */
SkCanvasItem *_sk_canvas_lookup_item          (SkCanvas               *self,
                                               SkNode                 *node);
gboolean      _sk_canvas_item_position        (SkCanvas               *self,
                                               SkNode                 *node,
                                               guint                  *position);
void          _sk_canvas_set_focus_node       (SkCanvas               *self,
                                               SkNode                 *node);
void          _sk_canvas_selection_changed    (SkCanvas               *self);
void          _sk_canvas_update_accessible    (SkCanvas               *self);
void          _sk_canvas_history_begin        (SkCanvas               *self,
                                               const char             *label);
void          _sk_canvas_history_end          (SkCanvas               *self);
void          _sk_canvas_emit_node_created    (SkCanvas               *self,
                                               SkNode                 *node);
void          _sk_canvas_emit_node_activated  (SkCanvas               *self,
                                               SkNode                 *node);
void          _sk_canvas_emit_edit_node       (SkCanvas               *self,
                                               SkNode                 *node);
void          _sk_canvas_emit_edit_process    (SkCanvas               *self);
void          _sk_canvas_emit_message         (SkCanvas               *self,
                                               const char             *message);
void          _sk_canvas_notify_zoom          (SkCanvas               *self);
void          _sk_canvas_notify_selection     (SkCanvas               *self);

/* sk-canvas-selection.c: the selection model and the selected connection */
gboolean      _sk_canvas_is_selected          (SkCanvas               *self,
                                               SkNode                 *node);
gboolean      _sk_canvas_has_selection        (SkCanvas               *self);
guint         _sk_canvas_count_selected       (SkCanvas               *self);
void          _sk_canvas_select_only          (SkCanvas               *self,
                                               SkNode                 *node);
void          _sk_canvas_toggle_selected      (SkCanvas               *self,
                                               SkNode                 *node);
void          _sk_canvas_select_all           (SkCanvas               *self);
void          _sk_canvas_select_items         (SkCanvas               *self,
                                               GtkBitset              *items,
                                               gboolean                extend);
void          _sk_canvas_clear_edge_selection (SkCanvas               *self);
void          _sk_canvas_follow_selection     (SkCanvas               *self,
                                               guint                   position,
                                               guint                   n_items);
void          _sk_canvas_replace_selection    (SkCanvas               *self,
                                               GtkSelectionModel      *selection);
void          _sk_canvas_drop_selection       (SkCanvas               *self);
void          _sk_canvas_apply_deferred_selection (SkCanvas           *self);
gboolean      _sk_canvas_edge_hit             (SkCanvas               *self,
                                               double                  x,
                                               double                  y,
                                               SkNode                **prior,
                                               SkNode                **node);

/* sk-canvas-view.c: the view transform and hit testing */
void          _sk_canvas_model_to_widget      (SkCanvas               *self,
                                               double                  mx,
                                               double                  my,
                                               double                 *wx,
                                               double                 *wy);
void          _sk_canvas_widget_to_model      (SkCanvas               *self,
                                               double                  wx,
                                               double                  wy,
                                               double                 *mx,
                                               double                 *my);
void          _sk_canvas_visible_model_rect   (SkCanvas               *self,
                                               graphene_rect_t        *rect);
void          _sk_canvas_zoom_around          (SkCanvas               *self,
                                               double                  zoom,
                                               double                  x,
                                               double                  y);
void          _sk_canvas_pan_to               (SkCanvas               *self,
                                               double                  offset_x,
                                               double                  offset_y);
void          _sk_canvas_fit_to_view          (SkCanvas               *self);
void          _sk_canvas_request_fit          (SkCanvas               *self);
void          _sk_canvas_scroll_to_rect       (SkCanvas               *self,
                                               const graphene_rect_t  *rect);
void          _sk_canvas_scroll_to_item       (SkCanvas               *self,
                                               SkCanvasItem           *item);
gboolean      _sk_canvas_edge_visible         (const double            p[8],
                                               const graphene_rect_t  *view);
void          _sk_canvas_cubic_point          (const double            p[8],
                                               double                  t,
                                               double                 *x,
                                               double                 *y);
SkNode       *_sk_canvas_node_at              (SkCanvas               *self,
                                               double                  x,
                                               double                  y);

double        _sk_canvas_min_zoom             (SkCanvas               *self);
gboolean      _sk_canvas_content_rect         (SkCanvas               *self,
                                               graphene_rect_t        *rect);

/* sk-canvas-overlays.c, sk-canvas-minimap.c, sk-canvas-find.c: the widgets
 * over the canvas */
void          _sk_canvas_overlays_init        (SkCanvas               *self);
void          _sk_canvas_overlays_dispose     (SkCanvas               *self);
void          _sk_canvas_overlays_allocate    (SkCanvas               *self,
                                               int                     width,
                                               int                     height);
void          _sk_canvas_overlays_snapshot    (GtkWidget              *widget,
                                               GtkSnapshot            *snapshot);
void          _sk_canvas_connect_hint_update  (SkCanvas               *self);
GtkWidget    *_sk_canvas_minimap_new          (SkCanvas               *self);
gboolean      _sk_canvas_minimap_shown        (SkCanvas               *self);
void          _sk_canvas_minimap_snapshot     (SkCanvas               *self,
                                               GtkSnapshot            *snapshot);
void          _sk_canvas_minimap_move_view    (SkCanvas               *self,
                                               double                  x,
                                               double                  y);
void          _sk_canvas_find_init            (SkCanvas               *self);
void          _sk_canvas_find_dispose         (SkCanvas               *self);
void          _sk_canvas_find_open            (SkCanvas               *self);
void          _sk_canvas_find_close           (SkCanvas               *self);
void          _sk_canvas_find_update          (SkCanvas               *self);
void          _sk_canvas_find_step            (SkCanvas               *self,
                                               int                     delta);

/* sk-canvas-paint.c: drawing */
void          _sk_canvas_snapshot             (GtkWidget              *widget,
                                               GtkSnapshot            *snapshot);
void          _sk_canvas_invalidate_edges     (SkCanvas               *self);
void          _sk_canvas_node_changed         (SkCanvas               *self,
                                               SkCanvasItem           *item);
void          _sk_canvas_clear_text_caches    (SkCanvas               *self);
void          _sk_canvas_edge_route           (SkCanvasItem           *from,
                                               SkCanvasItem           *to,
                                               double                  p[8]);
void          _sk_canvas_item_changed         (SkCanvas               *self,
                                               SkCanvasItem           *item,
                                               const char             *property);
void          _sk_canvas_item_clear_paint     (SkCanvasItem           *item);
void          _sk_canvas_paint_dispose        (SkCanvas               *self);
gboolean      _sk_canvas_run_button_at        (SkCanvas               *self,
                                               double                  x,
                                               double                  y,
                                               SkNode                **node);
void          _sk_canvas_proposal_base_changed (SkCanvas              *self);
gboolean      _sk_canvas_proposal_bounds      (SkCanvas               *self,
                                               graphene_rect_t        *rect);
gboolean      _sk_canvas_proposal_step_at     (SkCanvas               *self,
                                               double                  x,
                                               double                  y);

/* sk-canvas-tiles.c: the grid over the workflow and the tiles */
SkCanvasTiles *_sk_canvas_tiles_new           (void);
void          _sk_canvas_tiles_free           (SkCanvasTiles          *tiles);
void          _sk_canvas_tiles_invalidate     (SkCanvas               *self);
void          _sk_canvas_tiles_drop           (SkCanvas               *self);
void          _sk_canvas_tiles_index_stale    (SkCanvas               *self);
void          _sk_canvas_item_bounds          (SkCanvas               *self,
                                               SkCanvasItem           *item,
                                               graphene_rect_t        *rect);
void          _sk_canvas_index_ensure         (SkCanvas               *self);
void          _sk_canvas_index_items          (SkCanvas               *self,
                                               const graphene_rect_t  *rect,
                                               GArray                 *out);
void          _sk_canvas_index_edges          (SkCanvas               *self,
                                               const graphene_rect_t  *rect,
                                               GArray                 *out);
SkCanvasItem *_sk_canvas_index_item_at        (SkCanvas               *self,
                                               double                  mx,
                                               double                  my);
SkCanvasTile *_sk_canvas_tiles_lookup         (SkCanvas               *self,
                                               int                     tx,
                                               int                     ty);
void          _sk_canvas_tiles_insert         (SkCanvas               *self,
                                               SkCanvasTile           *tile);
void          _sk_canvas_tiles_trim           (SkCanvas               *self,
                                               guint                   keep);
gboolean      _sk_canvas_cairo_renderer       (SkCanvas               *self);
GskRenderNode *_sk_canvas_picture_node        (SkCanvas               *self,
                                               cairo_surface_t        *surface,
                                               int                     width,
                                               int                     height);

/* sk-canvas-tools.c: the gestures */
void          _sk_canvas_tools_init           (SkCanvas               *self);
void          _sk_canvas_tools_finalize       (SkCanvas               *self);
gboolean      _sk_canvas_tools_busy           (SkCanvas               *self);
void          _sk_canvas_abandon_drag         (SkCanvas               *self);
void          _sk_canvas_forget_node          (SkCanvas               *self,
                                               SkNode                 *node);
void          _sk_canvas_connect_tool_use     (SkCanvas               *self,
                                               SkNode                 *node);
void          _sk_canvas_connect_tool_cancel  (SkCanvas               *self);

/* sk-canvas-actions.c: actions, keys, edits, the popover, arrange */
void          _sk_canvas_class_actions_init   (SkCanvasClass          *klass);
void          _sk_canvas_update_actions       (SkCanvas               *self);
SkNode       *_sk_canvas_add_step_at          (SkCanvas               *self,
                                               double                  mx,
                                               double                  my);
void          _sk_canvas_connect_steps        (SkCanvas               *self,
                                               SkNode                 *prior,
                                               SkNode                 *node);
void          _sk_canvas_toggle_run           (SkCanvas               *self,
                                               SkNode                 *node);
void          _sk_canvas_toggle_all           (SkCanvas               *self);
void          _sk_canvas_arrange              (SkCanvas               *self,
                                               gboolean                record);
void          _sk_canvas_cancel_arrange       (SkCanvas               *self);

/* The gestures call these with widget coordinates, and the widget tests
 * call them the same way, so that both go through one code path. */
void          _sk_canvas_click                (SkCanvas               *self,
                                               double                  x,
                                               double                  y,
                                               guint                   button,
                                               GdkModifierType         state,
                                               int                     n_press);
gboolean      _sk_canvas_drag_begin           (SkCanvas               *self,
                                               double                  x,
                                               double                  y,
                                               GdkModifierType         state);
void          _sk_canvas_drag_update          (SkCanvas               *self,
                                               double                  offset_x,
                                               double                  offset_y);
void          _sk_canvas_drag_end             (SkCanvas               *self,
                                               double                  offset_x,
                                               double                  offset_y);
void          _sk_canvas_scroll               (SkCanvas               *self,
                                               double                  x,
                                               double                  y,
                                               double                  dx,
                                               double                  dy,
                                               GdkModifierType         state);
SkNode       *_sk_canvas_get_connect_source   (SkCanvas               *self);
gboolean      _sk_canvas_get_selected_edge    (SkCanvas               *self,
                                               SkNode                **prior,
                                               SkNode                **node);
void          _sk_canvas_select_edge          (SkCanvas               *self,
                                               SkNode                 *prior,
                                               SkNode                 *node);
gboolean      _sk_canvas_is_arranging         (SkCanvas               *self);

G_END_DECLS
