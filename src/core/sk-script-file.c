/* sk-script-file.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-script-file"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "sk-script-file.h"
#include "sk-step-folder.h"

#define SAVE_DELAY_MSEC  1000
#define CHECK_DELAY_MSEC  200

/* U+2029 PARAGRAPH SEPARATOR, which GtkTextBuffer takes for a line end. */
#define PARAGRAPH_SEPARATOR "\xe2\x80\xa9"

struct _SkScriptFile
{
  GObject       parent_instance;

  /* owned refs */
  GFile        *workflow_folder;
  char         *key;
  GFile        *file;
  char         *text;
  /* The script on disk as last read or written, or %NULL when there is
   * none, so that an edit undone is not written again. */
  GBytes       *disk_contents;
  GFileMonitor *monitor;
  GCancellable *load_cancellable;

  /* Loads, saves, deletions and moves, oldest first, run one at a time so
   * that the last one wins on disk and a load reads what was asked to be
   * written before it. */
  GQueue        ops;

  /* Edits raise the generation; a save records the generation it writes
   * when it is queued and when it is done. */
  guint64       generation;
  guint64       queued_generation;
  guint64       saved_generation;

  guint         save_source;
  guint         check_source;

  guint         has_script : 1;
  guint         loading : 1;
  guint         modified : 1;
  guint         watching : 1;
};

typedef enum
{
  OP_LOAD,
  OP_SAVE,
  OP_DELETE,
  OP_PUT_ASIDE,
} OpKind;

typedef struct
{
  SkScriptFile *self;
  OpKind        kind;
  guint64       generation;
  GBytes       *contents;
  GCancellable *cancellable;
  GTask        *task;
} Op;

/* What putting aside needs in its worker thread; GFiles may be used from
 * any thread. */
typedef struct
{
  GFile        *workflow_folder;
  char         *key;
} PutAsideData;

G_DEFINE_FINAL_TYPE (SkScriptFile, sk_script_file, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_WORKFLOW_FOLDER,
  PROP_KEY,
  PROP_HAS_SCRIPT,
  PROP_MODIFIED,
  PROP_LOADING,
  PROP_BUSY,
  N_PROPS
};

enum {
  LOADED,
  SAVED,
  CHANGED_ON_DISK,
  FAILED,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

static void     run_next_op      (SkScriptFile *self);
static gboolean check_timeout_cb (gpointer      user_data);

static void
op_free (Op *op)
{
  g_clear_object (&op->self);
  g_clear_pointer (&op->contents, g_bytes_unref);
  g_clear_object (&op->cancellable);
  g_clear_object (&op->task);
  g_free (op);
}

static void
put_aside_data_free (PutAsideData *data)
{
  g_clear_object (&data->workflow_folder);
  g_clear_pointer (&data->key, g_free);
  g_free (data);
}

/* A script of white space only is no code: there is nothing in it to
 * run, and the coding agent writes it as for a script that does not
 * exist. */
static gboolean
text_is_blank (const char *text,
               gsize       length)
{
  const char *end = text + length;

  for (const char *p = text; p < end; p = g_utf8_next_char (p))
    if (!g_unichar_isspace (g_utf8_get_char (p)))
      return FALSE;

  return TRUE;
}

static gboolean
contents_are_blank (GBytes *contents)
{
  gsize length = 0;
  const char *data = g_bytes_get_data (contents, &length);

  return data == NULL || text_is_blank (data, length);
}

static void
set_disk_contents (SkScriptFile *self,
                   GBytes       *contents)
{
  g_clear_pointer (&self->disk_contents, g_bytes_unref);
  self->disk_contents = contents != NULL ? g_bytes_ref (contents) : NULL;
}

static gboolean
is_dirty (SkScriptFile *self)
{
  return self->generation != self->saved_generation;
}

static void
update_modified (SkScriptFile *self)
{
  gboolean modified = is_dirty (self);

  if (self->modified != modified)
    {
      self->modified = modified;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_MODIFIED]);
    }
}

static void
set_has_script (SkScriptFile *self,
                gboolean      has_script)
{
  has_script = !!has_script;

  if (self->has_script != has_script)
    {
      self->has_script = has_script;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_HAS_SCRIPT]);
    }
}

static void
set_loading (SkScriptFile *self,
             gboolean      loading)
{
  loading = !!loading;

  if (self->loading != loading)
    {
      self->loading = loading;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_LOADING]);
    }
}

static void
replace_text (SkScriptFile *self,
              char         *text)
{
  g_free (self->text);
  self->text = text;
}

/* Reports @error with @message, a sentence for the user, in its place. */
static void
emit_failed (SkScriptFile *self,
             const GError *error,
             char         *message)
{
  g_autofree char *owned = message;
  g_autoptr(GError) failure = g_error_new_literal (error->domain, error->code, owned);

  g_signal_emit (self, signals [FAILED], 0, failure);
}

/* Scripts are UTF-8. Anything else is read as ISO-8859-15, the last 8-bit
 * encoding GtkSourceFileLoader tries, so that no byte is lost. The final
 * line end is dropped, as a GtkSourceBuffer with an implicit trailing
 * newline shows it.
 */
static char *
text_from_contents (const char *contents,
                    gsize       length)
{
  g_autofree char *converted = NULL;

  if (!g_utf8_validate_len (contents, length, NULL))
    {
      converted = g_convert (contents, length, "UTF-8", "ISO-8859-15", NULL, &length, NULL);
      if (converted == NULL)
        {
          converted = g_utf8_make_valid (contents, length);
          length = strlen (converted);
        }
      contents = converted;
    }

  if (length >= 2 && memcmp (contents + length - 2, "\r\n", 2) == 0)
    length -= 2;
  else if (length >= 1 && (contents[length - 1] == '\n' || contents[length - 1] == '\r'))
    length -= 1;
  else if (length >= 3 && memcmp (contents + length - 3, PARAGRAPH_SEPARATOR, 3) == 0)
    length -= 3;

  return g_strndup (contents, length);
}

/* What GtkSourceFileSaver writes for a buffer: every line ends in "\n",
 * and a script that is not empty ends with one. */
static GBytes *
contents_from_text (const char *text)
{
  GString *contents = g_string_sized_new (strlen (text) + 1);

  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '\r')
        {
          g_string_append_c (contents, '\n');
          if (p[1] == '\n')
            p++;
        }
      else if (strncmp (p, PARAGRAPH_SEPARATOR, 3) == 0)
        {
          g_string_append_c (contents, '\n');
          p += 2;
        }
      else
        {
          g_string_append_c (contents, *p);
        }
    }

  if (text[0] != '\0')
    g_string_append_c (contents, '\n');

  return g_string_free_to_bytes (contents);
}

static Op *
op_new (SkScriptFile *self,
        OpKind        kind)
{
  Op *op = g_new0 (Op, 1);

  /* The operation keeps the script file alive, so that an edit is saved
   * even when its owner lets go of it right after. */
  op->self = g_object_ref (self);
  op->kind = kind;
  op->generation = self->generation;

  return op;
}

static void
op_done (Op *op)
{
  g_autoptr(SkScriptFile) self = g_object_ref (op->self);

  g_assert (g_queue_peek_head (&self->ops) == op);

  g_queue_pop_head (&self->ops);
  op_free (op);

  if (g_queue_is_empty (&self->ops))
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_BUSY]);
  else
    run_next_op (self);
}

static void
queue_op (SkScriptFile *self,
          Op           *op)
{
  g_queue_push_tail (&self->ops, op);
  if (self->ops.length == 1)
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_BUSY]);
      run_next_op (self);
    }
}

static void
load_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Op *op = user_data;
  SkScriptFile *self = op->self;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;
  gboolean loaded;

  loaded = g_file_load_contents_finish (G_FILE (object), result, &contents, &length, NULL, &error);

  /* Closing, or a newer load, dropped this one. */
  if (g_cancellable_is_cancelled (op->cancellable))
    {
      op_done (op);
      return;
    }

  if (!loaded && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    emit_failed (self, error, g_strdup_printf (_("The code could not be read: %s"),
                                               error->message));

  g_clear_object (&self->load_cancellable);

  g_object_freeze_notify (G_OBJECT (self));
  replace_text (self, loaded ? text_from_contents (contents, length) : g_strdup (""));
  if (loaded)
    {
      g_autoptr(GBytes) bytes = g_bytes_new (contents, length);

      set_disk_contents (self, bytes);
    }
  else
    {
      set_disk_contents (self, NULL);
    }
  set_has_script (self, loaded && !text_is_blank (self->text, strlen (self->text)));
  self->saved_generation = self->generation;
  self->queued_generation = self->generation;
  update_modified (self);
  set_loading (self, FALSE);
  g_object_thaw_notify (G_OBJECT (self));

  g_signal_emit (self, signals [LOADED], 0);

  op_done (op);
}

static void
save_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Op *op = user_data;
  SkScriptFile *self = op->self;
  g_autoptr(GError) error = NULL;

  if (!g_file_replace_contents_finish (G_FILE (object), result, NULL, &error))
    {
      g_autofree char *name = g_file_get_basename (self->file);

      emit_failed (self, error, g_strdup_printf (_("%s could not be saved: %s"),
                                                 name, error->message));
    }
  else
    {
      self->saved_generation = MAX (self->saved_generation, op->generation);
      set_disk_contents (self, op->contents);
      g_object_freeze_notify (G_OBJECT (self));
      set_has_script (self, !contents_are_blank (op->contents));
      update_modified (self);
      g_object_thaw_notify (G_OBJECT (self));
      g_signal_emit (self, signals [SAVED], 0, self->file);
    }

  op_done (op);
}

static void
make_folder_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Op *op = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_file_make_directory_finish (G_FILE (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    {
      emit_failed (op->self, error,
                   g_strdup_printf (_("The step’s folder could not be created: %s"),
                                    error->message));
      op_done (op);
      return;
    }

  g_file_replace_contents_bytes_async (op->self->file, op->contents, NULL, FALSE,
                                       G_FILE_CREATE_NONE, NULL,
                                       save_done_cb, op);
}

static void
delete_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Op *op = user_data;
  SkScriptFile *self = op->self;
  g_autoptr(GError) error = NULL;

  if (!g_file_delete_finish (G_FILE (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      emit_failed (self, error, g_strdup_printf (_("The code could not be deleted: %s"),
                                                 error->message));
    }
  else
    {
      replace_text (self, g_strdup (""));
      set_disk_contents (self, NULL);
      set_has_script (self, FALSE);
      g_signal_emit (self, signals [LOADED], 0);
    }

  op_done (op);
}

static void
put_aside_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  PutAsideData *data = task_data;
  GError *error = NULL;

  if (sk_step_folder_put_aside_script (data->workflow_folder, data->key, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
put_aside_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Op *op = user_data;
  g_autoptr(SkScriptFile) self = g_object_ref (op->self);
  g_autoptr(GTask) task = g_steal_pointer (&op->task);
  g_autoptr(GError) error = NULL;
  gboolean moved;

  moved = g_task_propagate_boolean (G_TASK (result), &error);

  if (moved)
    {
      replace_text (self, g_strdup (""));
      set_disk_contents (self, NULL);
      set_has_script (self, FALSE);
      g_signal_emit (self, signals [LOADED], 0);
    }

  /* The caller hears of it once the queue has moved on, so that what it
   * does next (such as writing a new script) comes after the move. */
  op_done (op);

  if (moved)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

static void
run_next_op (SkScriptFile *self)
{
  Op *op = g_queue_peek_head (&self->ops);

  if (op == NULL)
    return;

  switch (op->kind)
    {
    case OP_LOAD:
      if (g_cancellable_is_cancelled (op->cancellable))
        op_done (op);
      else
        g_file_load_contents_async (self->file, op->cancellable, load_done_cb, op);
      break;

    case OP_SAVE:
      {
        g_autoptr(GFile) folder = g_file_get_parent (self->file);

        g_file_make_directory_async (folder, G_PRIORITY_DEFAULT, NULL, make_folder_cb, op);
      }
      break;

    case OP_DELETE:
      g_file_delete_async (self->file, G_PRIORITY_DEFAULT, NULL, delete_done_cb, op);
      break;

    case OP_PUT_ASIDE:
      {
        g_autoptr(GTask) task = NULL;
        PutAsideData *data;

        if (g_task_return_error_if_cancelled (op->task))
          {
            op_done (op);
            return;
          }

        data = g_new0 (PutAsideData, 1);
        data->workflow_folder = g_object_ref (self->workflow_folder);
        data->key = g_strdup (self->key);

        /* Without a source object the worker thread cannot be the last to
         * release the script file. */
        task = g_task_new (NULL, NULL, put_aside_done_cb, op);
        g_task_set_source_tag (task, run_next_op);
        g_task_set_task_data (task, data, (GDestroyNotify) put_aside_data_free);
        g_task_run_in_thread (task, put_aside_thread);
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

static void
save_now (SkScriptFile *self)
{
  g_autoptr(GBytes) contents = NULL;
  Op *op;

  g_clear_handle_id (&self->save_source, g_source_remove);

  if (!is_dirty (self) || self->queued_generation == self->generation)
    return;

  self->queued_generation = self->generation;

  /* Typing and deleting everything in a step without code leaves it
   * without code, as does typing only white space, such as Tab pressed
   * to move on; and an edit undone leaves the script as it was. */
  contents = contents_from_text (self->text);
  if ((!self->has_script && contents_are_blank (contents)) ||
      (self->disk_contents != NULL && g_bytes_equal (contents, self->disk_contents)))
    {
      self->saved_generation = self->generation;
      update_modified (self);

      /* Whoever waits for the edits to be on disk, such as a run about to
       * start, hears that they are. */
      g_signal_emit (self, signals [SAVED], 0, self->file);
      return;
    }

  op = op_new (self, OP_SAVE);
  op->contents = g_steal_pointer (&contents);
  queue_op (self, op);
}

static gboolean
save_timeout_cb (gpointer user_data)
{
  SkScriptFile *self = user_data;

  self->save_source = 0;
  save_now (self);

  return G_SOURCE_REMOVE;
}

static void
schedule_check (SkScriptFile *self)
{
  g_clear_handle_id (&self->check_source, g_source_remove);
  self->check_source = g_timeout_add (CHECK_DELAY_MSEC, check_timeout_cb, self);
}

/* A check stands aside while anything else is under way: an edit in
 * memory wins over the file, and is saved soon. */
static gboolean
may_check (SkScriptFile *self)
{
  return self->watching && !self->loading && !is_dirty (self) && g_queue_is_empty (&self->ops);
}

static void
check_contents_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GWeakRef *ref = user_data;
  g_autoptr(SkScriptFile) self = g_weak_ref_get (ref);
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *text = NULL;
  gsize length = 0;
  gboolean loaded;

  g_weak_ref_clear (ref);
  g_free (ref);

  loaded = g_file_load_contents_finish (G_FILE (object), result, &contents, &length, NULL, &error);

  if (self == NULL || !may_check (self))
    return;

  if (!loaded)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) && self->has_script)
        {
          g_signal_emit (self, signals [CHANGED_ON_DISK], 0);
          replace_text (self, g_strdup (""));
          set_disk_contents (self, NULL);
          set_has_script (self, FALSE);
          g_signal_emit (self, signals [LOADED], 0);
        }
      return;
    }

  text = text_from_contents (contents, length);
  if ((self->has_script || self->disk_contents != NULL) && g_str_equal (text, self->text))
    return;

  g_signal_emit (self, signals [CHANGED_ON_DISK], 0);
  if (self->watching)
    sk_script_file_load (self);
}

static gboolean
check_timeout_cb (gpointer user_data)
{
  SkScriptFile *self = user_data;
  GWeakRef *ref;

  self->check_source = 0;

  if (!may_check (self))
    return G_SOURCE_REMOVE;

  /* The check does not keep the script file alive. */
  ref = g_new0 (GWeakRef, 1);
  g_weak_ref_init (ref, self);
  g_file_load_contents_async (self->file, NULL, check_contents_cb, ref);

  return G_SOURCE_REMOVE;
}

static void
monitor_changed_cb (SkScriptFile      *self,
                    GFile             *file,
                    GFile             *other_file,
                    GFileMonitorEvent  event,
                    GFileMonitor      *monitor)
{
  g_assert (SK_IS_SCRIPT_FILE (self));

  if (event == G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED ||
      event == G_FILE_MONITOR_EVENT_PRE_UNMOUNT ||
      event == G_FILE_MONITOR_EVENT_UNMOUNTED)
    return;

  schedule_check (self);
}

static void
start_watching (SkScriptFile *self)
{
  g_autoptr(GError) error = NULL;

  self->watching = TRUE;

  if (self->monitor != NULL)
    return;

  self->monitor = g_file_monitor_file (self->file, G_FILE_MONITOR_NONE, NULL, &error);
  if (self->monitor != NULL)
    g_signal_connect_object (self->monitor, "changed",
                             G_CALLBACK (monitor_changed_cb), self, G_CONNECT_SWAPPED);
  else
    g_debug ("Cannot watch %s: %s", self->key, error->message);
}

static void
stop_watching (SkScriptFile *self)
{
  self->watching = FALSE;
  g_clear_handle_id (&self->check_source, g_source_remove);

  if (self->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->monitor, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }
}

static void
sk_script_file_constructed (GObject *object)
{
  SkScriptFile *self = (SkScriptFile *)object;

  G_OBJECT_CLASS (sk_script_file_parent_class)->constructed (object);

  g_assert (G_IS_FILE (self->workflow_folder));
  g_assert (self->key != NULL && self->key[0] != '\0');

  self->file = sk_step_folder_get_file (self->workflow_folder, self->key, SK_STEP_FILE_SCRIPT);
}

static void
sk_script_file_dispose (GObject *object)
{
  SkScriptFile *self = (SkScriptFile *)object;

  /* An edit still waiting for its pause is written all the same; the save
   * holds a reference until it is done. */
  save_now (self);

  stop_watching (self);
  g_clear_handle_id (&self->save_source, g_source_remove);
  g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);

  G_OBJECT_CLASS (sk_script_file_parent_class)->dispose (object);
}

static void
sk_script_file_finalize (GObject *object)
{
  SkScriptFile *self = (SkScriptFile *)object;

  /* Each queued operation holds a reference. */
  g_assert (g_queue_is_empty (&self->ops));

  g_clear_object (&self->workflow_folder);
  g_clear_pointer (&self->key, g_free);
  g_clear_object (&self->file);
  g_clear_pointer (&self->text, g_free);
  g_clear_pointer (&self->disk_contents, g_bytes_unref);

  G_OBJECT_CLASS (sk_script_file_parent_class)->finalize (object);
}

static void
sk_script_file_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  SkScriptFile *self = SK_SCRIPT_FILE (object);

  switch (prop_id)
    {
    case PROP_WORKFLOW_FOLDER:
      g_value_set_object (value, self->workflow_folder);
      break;

    case PROP_KEY:
      g_value_set_string (value, self->key);
      break;

    case PROP_HAS_SCRIPT:
      g_value_set_boolean (value, self->has_script);
      break;

    case PROP_MODIFIED:
      g_value_set_boolean (value, self->modified);
      break;

    case PROP_LOADING:
      g_value_set_boolean (value, self->loading);
      break;

    case PROP_BUSY:
      g_value_set_boolean (value, sk_script_file_get_busy (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_script_file_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  SkScriptFile *self = SK_SCRIPT_FILE (object);

  switch (prop_id)
    {
    case PROP_WORKFLOW_FOLDER:
      self->workflow_folder = g_value_dup_object (value);
      break;

    case PROP_KEY:
      self->key = g_value_dup_string (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_script_file_class_init (SkScriptFileClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = sk_script_file_constructed;
  object_class->dispose = sk_script_file_dispose;
  object_class->finalize = sk_script_file_finalize;
  object_class->get_property = sk_script_file_get_property;
  object_class->set_property = sk_script_file_set_property;

  /**
   * SkScriptFile:workflow-folder:
   *
   * The folder of the workflow the step belongs to.
   */
  properties [PROP_WORKFLOW_FOLDER] =
    g_param_spec_object ("workflow-folder", NULL, NULL, G_TYPE_FILE,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  /**
   * SkScriptFile:key:
   *
   * The key of the step whose script this is.
   */
  properties [PROP_KEY] =
    g_param_spec_string ("key", NULL, NULL, NULL,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  /**
   * SkScriptFile:has-script:
   *
   * Whether the script exists on disk and has code in it, as far as the
   * last load, save or check found. A script of white space only has no
   * code.
   */
  properties [PROP_HAS_SCRIPT] =
    g_param_spec_boolean ("has-script", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * SkScriptFile:modified:
   *
   * Whether the text has edits that are not written yet.
   */
  properties [PROP_MODIFIED] =
    g_param_spec_boolean ("modified", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * SkScriptFile:loading:
   *
   * Whether a load was asked for and has not finished.
   */
  properties [PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * SkScriptFile:busy:
   *
   * Whether loads, saves, deletions or moves are queued or under way.
   */
  properties [PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SkScriptFile::loaded:
   * @self: a #SkScriptFile
   *
   * Emitted when the text is what is on disk: after a load, after the
   * script was deleted or put aside, or when it was found gone.
   */
  signals [LOADED] =
    g_signal_new ("loaded",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * SkScriptFile::saved:
   * @self: a #SkScriptFile
   * @file: the script that was written
   *
   * Emitted when the edits are on disk: when they have been written to
   * the script, or when there was nothing to write because they left it
   * as it was, or left a step without code with white space only.
   */
  signals [SAVED] =
    g_signal_new ("saved",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_FILE);

  /**
   * SkScriptFile::changed-on-disk:
   * @self: a #SkScriptFile
   *
   * Emitted when another program, such as the coding agent, wrote or
   * removed the script while it had no edits of its own. The script file
   * then loads it again, and #SkScriptFile::loaded follows.
   */
  signals [CHANGED_ON_DISK] =
    g_signal_new ("changed-on-disk",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * SkScriptFile::failed:
   * @self: a #SkScriptFile
   * @error: what went wrong, in a sentence for the user
   *
   * Emitted when the script could not be read, written or deleted. The
   * text stays as it was, and unsaved edits stay modified.
   */
  signals [FAILED] =
    g_signal_new ("failed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
sk_script_file_init (SkScriptFile *self)
{
  self->text = g_strdup ("");
  g_queue_init (&self->ops);
}

/**
 * sk_script_file_new:
 * @workflow_folder: a workflow folder
 * @key: a step's key
 *
 * Creates the document for the script of the step @key. It reads nothing
 * until sk_script_file_load() is called.
 *
 * Returns: (transfer full): a new #SkScriptFile
 */
SkScriptFile *
sk_script_file_new (GFile      *workflow_folder,
                    const char *key)
{
  g_return_val_if_fail (G_IS_FILE (workflow_folder), NULL);
  g_return_val_if_fail (key != NULL && key[0] != '\0', NULL);

  return g_object_new (SK_TYPE_SCRIPT_FILE,
                       "workflow-folder", workflow_folder,
                       "key", key,
                       NULL);
}

/**
 * sk_script_file_get_workflow_folder:
 * @self: a #SkScriptFile
 *
 * Returns: (transfer none): the workflow folder
 */
GFile *
sk_script_file_get_workflow_folder (SkScriptFile *self)
{
  g_return_val_if_fail (SK_IS_SCRIPT_FILE (self), NULL);

  return self->workflow_folder;
}

/**
 * sk_script_file_get_key:
 * @self: a #SkScriptFile
 *
 * Returns: the step's key
 */
const char *
sk_script_file_get_key (SkScriptFile *self)
{
  g_return_val_if_fail (SK_IS_SCRIPT_FILE (self), NULL);

  return self->key;
}

/**
 * sk_script_file_get_file:
 * @self: a #SkScriptFile
 *
 * Returns: (transfer none): the script, which may not exist yet
 */
GFile *
sk_script_file_get_file (SkScriptFile *self)
{
  g_return_val_if_fail (SK_IS_SCRIPT_FILE (self), NULL);

  return self->file;
}

/**
 * sk_script_file_get_text:
 * @self: a #SkScriptFile
 *
 * The text as it is shown: without the final line end the file has.
 *
 * Returns: the script's text, with the edits not written yet
 */
const char *
sk_script_file_get_text (SkScriptFile *self)
{
  g_return_val_if_fail (SK_IS_SCRIPT_FILE (self), NULL);

  return self->text;
}

/**
 * sk_script_file_set_text:
 * @self: a #SkScriptFile
 * @text: the script's new text
 *
 * Records an edit, which is written after a short pause unless another
 * edit follows, or at once by sk_script_file_save().
 */
void
sk_script_file_set_text (SkScriptFile *self,
                         const char   *text)
{
  g_return_if_fail (SK_IS_SCRIPT_FILE (self));
  g_return_if_fail (text != NULL);

  if (text != self->text)
    replace_text (self, g_strdup (text));

  self->generation++;
  update_modified (self);

  g_clear_handle_id (&self->save_source, g_source_remove);
  self->save_source = g_timeout_add (SAVE_DELAY_MSEC, save_timeout_cb, self);
}

/**
 * sk_script_file_get_has_script:
 * @self: a #SkScriptFile
 *
 * Returns: %TRUE if the script exists on disk with something other than
 *   white space in it
 */
gboolean
sk_script_file_get_has_script (SkScriptFile *self)
{
  g_return_val_if_fail (SK_IS_SCRIPT_FILE (self), FALSE);

  return self->has_script;
}

/**
 * sk_script_file_get_modified:
 * @self: a #SkScriptFile
 *
 * Returns: %TRUE if the text has edits that are not written yet
 */
gboolean
sk_script_file_get_modified (SkScriptFile *self)
{
  g_return_val_if_fail (SK_IS_SCRIPT_FILE (self), FALSE);

  return self->modified;
}

/**
 * sk_script_file_get_loading:
 * @self: a #SkScriptFile
 *
 * Returns: %TRUE from sk_script_file_load() until #SkScriptFile::loaded
 */
gboolean
sk_script_file_get_loading (SkScriptFile *self)
{
  g_return_val_if_fail (SK_IS_SCRIPT_FILE (self), FALSE);

  return self->loading;
}

/**
 * sk_script_file_get_busy:
 * @self: a #SkScriptFile
 *
 * Returns: %TRUE while operations on the script are queued or under way
 */
gboolean
sk_script_file_get_busy (SkScriptFile *self)
{
  g_return_val_if_fail (SK_IS_SCRIPT_FILE (self), FALSE);

  return !g_queue_is_empty (&self->ops);
}

/**
 * sk_script_file_load:
 * @self: a #SkScriptFile
 *
 * Reads the script after the operations already queued, replacing the
 * text and dropping any edit not yet saved, and watches the file from now
 * on. #SkScriptFile::loaded follows; a script that does not exist loads
 * as an empty text.
 */
void
sk_script_file_load (SkScriptFile *self)
{
  Op *op;

  g_return_if_fail (SK_IS_SCRIPT_FILE (self));

  start_watching (self);

  g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  self->load_cancellable = g_cancellable_new ();

  op = op_new (self, OP_LOAD);
  op->cancellable = g_object_ref (self->load_cancellable);

  set_loading (self, TRUE);
  queue_op (self, op);
}

/**
 * sk_script_file_save:
 * @self: a #SkScriptFile
 *
 * Starts writing the edits now instead of after the short pause, for
 * example before the workflow runs. #SkScriptFile::saved follows.
 */
void
sk_script_file_save (SkScriptFile *self)
{
  g_return_if_fail (SK_IS_SCRIPT_FILE (self));

  save_now (self);
}

/**
 * sk_script_file_delete:
 * @self: a #SkScriptFile
 *
 * Deletes the script after the operations already queued. The edits not
 * yet saved go with it.
 */
void
sk_script_file_delete (SkScriptFile *self)
{
  g_return_if_fail (SK_IS_SCRIPT_FILE (self));

  g_clear_handle_id (&self->save_source, g_source_remove);
  self->queued_generation = self->generation;
  self->saved_generation = self->generation;
  update_modified (self);

  queue_op (self, op_new (self, OP_DELETE));
}

/**
 * sk_script_file_check:
 * @self: a #SkScriptFile
 *
 * Looks at the script on disk soon, as after a change the file monitor
 * reports. A script written in a folder that did not exist when watching
 * started may be noticed late by the monitor.
 */
void
sk_script_file_check (SkScriptFile *self)
{
  g_return_if_fail (SK_IS_SCRIPT_FILE (self));

  if (self->watching)
    schedule_check (self);
}

/**
 * sk_script_file_close:
 * @self: a #SkScriptFile
 *
 * Starts writing the edits not yet saved, drops a load under way and
 * stops watching the file, for when the script is no longer shown. The
 * operations already queued still run and report.
 */
void
sk_script_file_close (SkScriptFile *self)
{
  g_return_if_fail (SK_IS_SCRIPT_FILE (self));

  save_now (self);
  stop_watching (self);

  g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  set_loading (self, FALSE);
}

/**
 * sk_script_file_put_aside_async:
 * @self: a #SkScriptFile
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the script has moved
 * @user_data: data for @callback
 *
 * Moves the script into the step's `.skele/previous/`, replacing an older
 * copy there, after the operations already queued and after writing the
 * edits not yet saved, so that they go with it. The text is then empty and
 * the step has no script.
 */
void
sk_script_file_put_aside_async (SkScriptFile        *self,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  Op *op;

  g_return_if_fail (SK_IS_SCRIPT_FILE (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  save_now (self);

  op = op_new (self, OP_PUT_ASIDE);
  op->task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (op->task, sk_script_file_put_aside_async);

  queue_op (self, op);
}

/**
 * sk_script_file_put_aside_finish:
 * @self: a #SkScriptFile
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the script was put aside or there was none
 */
gboolean
sk_script_file_put_aside_finish (SkScriptFile  *self,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (SK_IS_SCRIPT_FILE (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sk_script_file_put_aside_async,
                        FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
