;;; companion4j.el --- Emacs as the IDE of Qwen Code and Gemini CLI, through companion4j  -*- lexical-binding: t; -*-

;; Author: The Companion4J authors
;; Version: 1.0.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: tools, convenience, processes

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Companion4J is an IDE companion for the Qwen Code and Gemini CLI terminal
;; agents.  This package makes Emacs a client of a running
;; `companion4j serve': the CLIs connected to that companion see the file you
;; edit, where point is, the region and flymake's (or flycheck's) diagnostics
;; as IDE context, and the edits they propose open in Emacs for review.  The
;; text of a file you changed and did not save yet goes to the companion too,
;; as you type: its own chat agent (`companion4j serve --agent') reads that
;; text, not the disk.
;;
;; Installation
;;
;; Emacs 29 and later, from a clone of the project's repository:
;;
;;   (package-vc-install
;;    '(companion4j :url "<the repository's clone URL>"
;;                  :lisp-dir "editors/emacs"))
;;
;; Emacs 30 and later, with use-package:
;;
;;   (use-package companion4j
;;     :vc (:url "<the repository's clone URL>" :lisp-dir "editors/emacs")
;;     :config (companion4j-mode 1))
;;
;; or, with a checkout on disk:
;;
;;   (use-package companion4j
;;     :load-path "/path/to/companion4j/editors/emacs"
;;     :config (companion4j-mode 1))
;;
;; Emacs 28: M-x package-install-file RET
;; /path/to/companion4j/editors/emacs/companion4j.el RET, then put
;; (companion4j-mode 1) in your init file.
;;
;; The package needs the `companion4j' command: on the PATH (a release's
;; install.sh links it into ~/.local/bin), or named by `companion4j-command'.
;;
;; Use
;;
;; Start `companion4j serve --workspace DIR' (or set `companion4j-autostart',
;; or run M-x companion4j-start), start Emacs in DIR or below it, and start
;; the CLI with M-x companion4j-run (or in any terminal in DIR).  The mode
;; line shows "C4J off" while no companion serves the directory, else the
;; number of connected CLIs and of proposals waiting for you, e.g.
;; "C4J 1 CLI · 1 to review".  To show it somewhere else, use the function
;; `companion4j-mode-line' or the mode-line construct in the variable of the
;; same name.
;;
;; Finding the companion
;;
;; The package runs one process, `companion4j attach --workspace DIR', for
;; `companion4j-directory' (by default the directory Emacs started in), and
;; talks to it in JSON lines over its standard input and output
;; (docs/attach.md).  That process finds the companion serving DIR, makes it
;; prove that it holds its token before sending the token anywhere, follows
;; it, and finds the next one when it goes away; COMPANION4J_EDITOR_API and
;; COMPANION4J_TOKEN in Emacs's environment name one companion instead.
;; While none proves itself, the mode line reads "C4J off" and
;; `companion4j-status' says why.  The token never appears in a process's
;; arguments nor in a message.  `companion4j-run' takes only the IDE's
;; variables from the companion, and diff ids and paths from it are used
;; only in their documented form.
;;
;; Reviewing proposed edits
;;
;; When a CLI proposes an edit, the frame shows the file on the left, the
;; proposal on the right in the buffer *companion4j: <file>* (editable, in
;; the file's major mode, selected) and a unified diff of the two below it,
;; refreshed as you edit the proposal.  In the proposal:
;;
;;   C-c C-c or C-x C-s   accept the proposal as the buffer has it now: the
;;                        CLI writes the file (this package never does)
;;   C-c C-k              reject it; killing the buffer rejects it too
;;   C-c C-d              compare the file and the proposal with ediff
;;
;; When the CLI withdraws or replaces a proposal, or leaves, the proposal
;; closes and a message says why.  The previous window layout comes back
;; once no proposal is open.
;;
;; A change of several files (a rename the companion proposes as one unit)
;; opens in the buffer *companion4j change: <proposer>*, which lists its
;; files and their diffs: C-c C-c accepts every file, C-c C-k (or killing
;; the buffer) rejects them all.  The companion writes the files; their
;; buffers without unsaved changes are reloaded.
;;
;; Questions about code
;;
;; The model's questions about code reach Emacs through the companion.  The
;; package answers definitions and references through xref (eglot's server
;; where it runs for the file, else the file tree's TAGS for definitions and
;; a search of the project for references) and refuses the others, saying
;; why.  A file opened only to answer is closed again.
;;
;; Commands: `companion4j-mode', `companion4j-start', `companion4j-run',
;; `companion4j-status', `companion4j-accept', `companion4j-reject',
;; `companion4j-ediff', `companion4j-accept-change',
;; `companion4j-reject-change' and the queries `companion4j-proposals' and
;; `companion4j-changes'.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'diff-mode)
(require 'flymake)
(require 'xref)

(defvar tags-file-name)
(defvar tags-table-list)

(declare-function ediff-buffers "ediff")
(declare-function term-mode "term")
(declare-function term-char-mode "term")
(declare-function term-exec "term")
(declare-function flycheck-current-errors "ext:flycheck")
(declare-function flycheck-error-line "ext:flycheck")
(declare-function flycheck-error-column "ext:flycheck")
(declare-function flycheck-error-end-line "ext:flycheck")
(declare-function flycheck-error-end-column "ext:flycheck")
(declare-function flycheck-error-level "ext:flycheck")
(declare-function flycheck-error-message "ext:flycheck")
(declare-function flycheck-error-checker "ext:flycheck")
(defvar flycheck-mode)
(defvar companion4j-mode)

;;;; Settings

(defgroup companion4j nil
  "Emacs as the IDE of Qwen Code and Gemini CLI, through companion4j."
  :group 'tools
  :prefix "companion4j-")

(defcustom companion4j-autostart nil
  "Non-nil: start a companion when none serves `companion4j-directory'.
It runs inside the `companion4j attach' process of this Emacs, and
stops when Emacs exits."
  :type 'boolean)

(defcustom companion4j-command "companion4j"
  "The companion4j program, e.g. \"/opt/companion4j/bin/companion4j\".
A string of several words, e.g. \"java -jar /path/companion4j.jar\", is
split into the program and its first arguments."
  :type 'string)

(defcustom companion4j-directory nil
  "The directory whose companion Emacs follows; nil: where Emacs started."
  :type '(choice (const :tag "Where Emacs started" nil) directory))

(defcustom companion4j-run-command "qwen"
  "The default command line of `companion4j-run'."
  :type 'string)

(defcustom companion4j-cursor-delay 0.1
  "Seconds of rest after which point, the region and unsaved text are reported."
  :type 'number)

(defcustom companion4j-reconnect-delay 2
  "Seconds to wait before running `companion4j attach' again after it ended.
The wait doubles, up to 30 s, while it keeps ending."
  :type 'number)

(defcustom companion4j-request-timeout 5
  "Seconds to wait for the companion to answer an accept or reject."
  :type 'number)

(defconst companion4j--max-selection 16384
  "The longest selection text sent, in characters.")

(defun companion4j--cwd ()
  "The directory whose companion Emacs follows, without a final slash."
  (directory-file-name
   (expand-file-name (or companion4j-directory command-line-default-directory default-directory))))

(defun companion4j--inside-p (dir root)
  "Non-nil when DIR is ROOT or lies below it."
  (let ((root (directory-file-name root)))
    (or (string= dir root) (string-prefix-p (file-name-as-directory root) dir))))

;;;; The attach process

;; One `companion4j attach' process does discovery, the companion's proof,
;; the token and the event stream (docs/attach.md); this package speaks JSON
;; lines with it.  Answers to requests are handled as they arrive, so that a
;; command may wait for one; notifications are handled in arrival order from
;; a timer, outside the process filter, since they change windows.

(defvar companion4j--process nil "The `companion4j attach' process, or nil.")
(defvar companion4j--transport nil
  "The function that writes one message, an alist, to attach; nil while none runs.")
(defvar companion4j--chunks nil "Output of attach after its last complete line, newest first.")
(defvar companion4j--inbox nil "Notifications not handled yet, newest first.")
(defvar companion4j--waiting (make-hash-table :test #'eql)
  "The callbacks of requests not answered yet, by id.")
(defvar companion4j--next-id 0)
(defvar companion4j--relaunch-timer nil)
(defvar companion4j--relaunch-delay nil
  "Seconds before attach runs again; doubles while it keeps ending.")
(defvar companion4j--start nil
  "Non-nil once `companion4j-start' asked for a companion of this Emacs.")

(defvar companion4j--attached nil
  "The companion attach follows: a plist (:port :started), or nil.")
(defvar companion4j--reason nil
  "Why no companion is attached, in attach's words, or nil when not known yet.")
(defvar companion4j--said nil "The last `companion4j--reason' shown as a message.")
(defvar companion4j--clients nil "The connected CLIs: an alist of (ID . LABEL).")
(defvar companion4j--workspace nil "The companion's workspace roots.")
(defvar companion4j--proposals nil
  "The open proposals, oldest first.
Each is a plist (:id :file :rel :client :buffer :diff :change).")

(defun companion4j--read-json (string)
  "Parse the JSON text STRING into alists and lists."
  (json-parse-string string :object-type 'alist :array-type 'list
                     :null-object nil :false-object nil))

(defun companion4j--notify (method params)
  "Send the notification METHOD with the alist PARAMS to attach."
  ;; Best effort, as editor events are: an attach that just ended is said so by its sentinel.
  (when companion4j--transport
    (ignore-errors (funcall companion4j--transport `((method . ,method) (params . ,params))))))

(defun companion4j--error (code text)
  "An error answer with CODE and the message TEXT, as attach gives one."
  `((error (code . ,code) (message . ,text))))

(defun companion4j--request (method params callback)
  "Ask attach METHOD with the alist PARAMS; CALLBACK gets the answer alist.
The answer has `result' or `error' ((code . C) (message . M))."
  (if (null companion4j--transport)
      (funcall callback (companion4j--error "detached" (companion4j--no-companion)))
    (let ((id (cl-incf companion4j--next-id)))
      (puthash id callback companion4j--waiting)
      (condition-case err
          (funcall companion4j--transport `((id . ,id) (method . ,method) ,@(and params `((params . ,params)))))
        (error
         (remhash id companion4j--waiting)
         (funcall callback (companion4j--error "failed" (error-message-string err))))))))

(defun companion4j--request-sync (method params)
  "Ask attach METHOD with PARAMS and wait at most `companion4j-request-timeout'."
  (let ((answer nil)
        (deadline (+ (float-time) companion4j-request-timeout)))
    (companion4j--request method params (lambda (a) (setq answer a)))
    ;; Only attach's output is read meanwhile, and no timer runs: notifications wait their turn.
    (while (and (null answer) companion4j--transport (< (float-time) deadline))
      (accept-process-output companion4j--process 0.05 nil 1))
    (or answer (companion4j--error "failed" "companion4j attach did not answer"))))

(defun companion4j--failure (answer)
  "The error message of ANSWER, or nil when it is a result."
  (and (not (assq 'result answer))
       (or (alist-get 'message (alist-get 'error answer)) "companion4j attach gave no answer")))

(defun companion4j--output (_process output)
  "Split OUTPUT of attach into lines; handle each complete one."
  (let ((start 0))
    (while (string-match "\n" output start)
      (let ((end (match-beginning 0)))
        ;; The line's earlier chunks are joined once: a proposal of megabytes comes in many.
        (companion4j--receive-line
         (decode-coding-string
          (apply #'concat (nreverse (cons (substring output start end) companion4j--chunks)))
          'utf-8))
        (setq companion4j--chunks nil start (1+ end))))
    (when (< start (length output))
      (push (substring output start) companion4j--chunks))))

(defun companion4j--receive-line (line)
  "Handle LINE, one JSON message from attach."
  (let ((message (condition-case nil (companion4j--read-json line) (error nil))))
    (cond
     ((not (consp message))
      (message "companion4j: companion4j attach sent a line that is not a JSON object"))
     ((and (assq 'id message) (not (assq 'method message)))
      (let ((callback (gethash (alist-get 'id message) companion4j--waiting)))
        (remhash (alist-get 'id message) companion4j--waiting)
        (when callback (funcall callback message))))
     (t
      (push message companion4j--inbox)
      (run-at-time 0 nil #'companion4j--drain)))))

(defun companion4j--drain ()
  "Handle the notifications received, oldest first."
  (let ((messages (nreverse companion4j--inbox)))
    (setq companion4j--inbox nil)
    (dolist (message messages)
      (with-demoted-errors "companion4j: %S"
        (companion4j--handle (alist-get 'method message) (alist-get 'params message))))))

(defun companion4j--program ()
  "The companion4j command line as a list, or nil when its program is not found."
  (let* ((words (split-string-and-unquote companion4j-command))
         (program (and words (executable-find (car words)))))
    (and program (cons program (cdr words)))))

(defun companion4j--launch ()
  "Run `companion4j attach' for `companion4j--cwd', unless it runs."
  (when companion4j--relaunch-timer
    (cancel-timer companion4j--relaunch-timer)
    (setq companion4j--relaunch-timer nil))
  (when (and companion4j-mode (not (process-live-p companion4j--process)))
    (let ((program (companion4j--program))
          (start (or companion4j-autostart companion4j--start)))
      (if (null program)
          (companion4j--detach
           (format "%s is not on the PATH; put it there or set `companion4j-command'"
                   (car (split-string-and-unquote companion4j-command))))
        (setq companion4j--chunks nil companion4j--inbox nil)
        ;; The log holds this run only, so that the line said when it ends is its own.
        (with-current-buffer (get-buffer-create " *companion4j attach*") (erase-buffer))
        (let ((default-directory (file-name-as-directory (companion4j--cwd))))
          (setq companion4j--process
                (make-process
                 :name "companion4j attach"
                 :command (append program (list "attach" "--workspace" (companion4j--cwd))
                                  (and start '("--start")))
                 :connection-type 'pipe
                 ;; Read bytes and decode whole lines: a character may straddle two reads.
                 :coding '(binary . utf-8-unix)
                 :noquery t
                 :buffer nil
                 :stderr (get-buffer-create " *companion4j attach*")
                 :filter #'companion4j--output
                 :sentinel #'companion4j--ended))
          (let ((process companion4j--process))
            (setq companion4j--transport
                  (lambda (message)
                    (process-send-string process (concat (json-serialize message) "\n"))))))))))

(defun companion4j--log-line (first)
  "The FIRST (else the last) line attach wrote to its standard error, or nil."
  (let ((log (get-buffer " *companion4j attach*")))
    (and log (with-current-buffer log
               (let ((lines (split-string (string-trim (buffer-string)) "\n" t)))
                 (if first (car lines) (car (last lines))))))))

(defun companion4j--ended (process _event)
  "Attach PROCESS ended: say why and run it again soon while the mode is on."
  (when (and (eq process companion4j--process) (not (process-live-p process)))
    (setq companion4j--process nil companion4j--transport nil)
    (let ((waiting companion4j--waiting))
      (setq companion4j--waiting (make-hash-table :test #'eql))
      (maphash (lambda (_id callback)
                 (funcall callback (companion4j--error "detached" "companion4j attach ended")))
               waiting))
    (when companion4j-mode
      (let* ((status (process-exit-status process))
             ;; A bad command line exits 2 with the reason first, then the usage.
             (line (companion4j--log-line (eql status 2))))
        (companion4j--detach (format "companion4j attach ended (exit %d)%s" status (if line (concat ": " line) ""))))
      (setq companion4j--relaunch-delay
            (min 30 (if companion4j--relaunch-delay (* 2 companion4j--relaunch-delay) companion4j-reconnect-delay))
            companion4j--relaunch-timer
            (run-with-timer companion4j--relaunch-delay nil #'companion4j--launch)))))

(defun companion4j--quit ()
  "End attach by closing its input, so that a companion it started stops cleanly."
  (when companion4j--relaunch-timer
    (cancel-timer companion4j--relaunch-timer)
    (setq companion4j--relaunch-timer nil))
  (let ((process companion4j--process)
        (deadline (+ (float-time) 3)))
    (when (process-live-p process)
      (ignore-errors (process-send-eof process))
      (while (and (process-live-p process) (< (float-time) deadline))
        (accept-process-output process 0.05 nil 1))
      (when (process-live-p process) (delete-process process)))))

(defun companion4j--address (port)
  "The editor API address of the companion on PORT, for messages."
  (format "http://127.0.0.1:%s/editor" port))

(defun companion4j--no-companion ()
  "Why no companion is attached, for messages."
  (or companion4j--reason
      (format "no companion serves %s yet" (abbreviate-file-name (companion4j--cwd)))))

(defun companion4j--redisplay-mode-line ()
  "Show the new state in every mode line."
  (force-mode-line-update t))

(defun companion4j--detach (reason)
  "No companion is attached, for REASON: say it once, and show it."
  (setq companion4j--attached nil companion4j--clients nil companion4j--reason reason)
  (unless (equal reason companion4j--said)
    (setq companion4j--said reason)
    (message "companion4j: %s" reason))
  (companion4j--redisplay-mode-line))

(defun companion4j--attach (params)
  "A companion proved itself (PARAMS of `attached'): rebuild the view from it."
  (let* ((state (alist-get 'state params))
         (pending (alist-get 'pendingDiffs state))
         (ids (mapcar (lambda (d) (alist-get 'id d)) pending)))
    (setq companion4j--attached (list :port (alist-get 'port params) :started (alist-get 'started params))
          companion4j--reason nil companion4j--said nil companion4j--relaunch-delay nil
          companion4j--workspace (alist-get 'workspaceRoots state)
          companion4j--clients (mapcar (lambda (c) (cons (alist-get 'id c) (alist-get 'label c)))
                                       (alist-get 'clients state)))
    (when (alist-get 'started params)
      (message "companion4j: started a companion for %s" (abbreviate-file-name (companion4j--cwd))))
    ;; Proposals of a companion that went away ended with it.
    (dolist (proposal companion4j--proposals)
      (unless (member (plist-get proposal :id) ids)
        (companion4j--proposal-closed-by-cli `((id . ,(plist-get proposal :id)) (outcome . "stopped")))))
    (mapc #'companion4j--open-proposal pending)
    (companion4j--sync-changes (alist-get 'pendingChanges state))
    (companion4j--forget-reports)
    (dolist (buffer (buffer-list))
      (with-current-buffer buffer
        (kill-local-variable 'companion4j--last-diagnostics)
        ;; A companion that may never have heard of this Emacs learns of every unsaved file.
        (kill-local-variable 'companion4j--told-dirty)
        (when (buffer-modified-p) (companion4j--report-dirty))))
    (companion4j--report-later)
    (companion4j--redisplay-mode-line)))

(defun companion4j--handle (method params)
  "Handle the notification METHOD with PARAMS from attach."
  (pcase method
    ("attached" (companion4j--attach params))
    ("detached" (companion4j--detach (or (alist-get 'reason params) "the companion went away")))
    ("diffOpened" (companion4j--open-proposal params))
    ("diffClosed" (companion4j--proposal-closed-by-cli params))
    ("clientConnected"
     (setf (alist-get (alist-get 'id params) companion4j--clients nil nil #'equal)
           (alist-get 'label params))
     (companion4j--redisplay-mode-line))
    ("clientDisconnected"
     (setq companion4j--clients
           (cl-remove (alist-get 'id params) companion4j--clients :key #'car :test #'equal))
     (companion4j--redisplay-mode-line))
    ("openFile" (companion4j--open-file params))
    ("codeQuery" (companion4j--answer-code-query params))
    ("changeOpened" (companion4j--open-change params))
    ("changeClosed" (companion4j--change-closed params))
    ("error" (message "companion4j: %s" (alist-get 'message params)))))

;;;; Events to the companion

(defun companion4j--post (event)
  "Send EVENT, an alist, to the companion attached, if one is."
  (when companion4j--attached
    (companion4j--notify "event" event)))

(defvar-local companion4j--proposal-id nil
  "The id of the proposal this buffer shows, in proposal and diff buffers.")

(defun companion4j--file (&optional buffer)
  "The file of BUFFER when it is a file on disk, not a proposal."
  (with-current-buffer (or buffer (current-buffer))
    (and buffer-file-name (not companion4j--proposal-id) (file-exists-p buffer-file-name)
         (expand-file-name buffer-file-name))))

(defun companion4j--position (pos)
  "POS as (LINE . CHARACTER), both 1-based, characters not bytes."
  (save-excursion
    (goto-char pos)
    (cons (line-number-at-pos pos t) (1+ (- pos (line-beginning-position))))))

(defun companion4j--range (beg end)
  "The range from BEG to END, the end just after the last character."
  (let ((start (companion4j--position beg))
        (stop (companion4j--position end)))
    `((startLine . ,(car start)) (startCharacter . ,(cdr start))
      (endLine . ,(car stop)) (endCharacter . ,(cdr stop)))))

(defvar companion4j--last-file nil "The file last reported as focused.")
(defvar companion4j--last-cursor nil "The (FILE LINE CHARACTER) last reported.")
(defvar companion4j--last-selection nil "The (FILE TEXT) last reported as selected.")
(defvar companion4j--report-timer nil)

(defun companion4j--forget-reports ()
  "Report everything again next time, e.g. to a companion that restarted."
  (setq companion4j--last-file nil companion4j--last-cursor nil companion4j--last-selection nil))

(defun companion4j--report ()
  "Report the selected window's file, point and region, as far as they changed."
  (setq companion4j--report-timer nil)
  (when companion4j-mode
    (with-current-buffer (window-buffer (selected-window))
      (let ((path (companion4j--file)))
        (when path
          (unless (equal path companion4j--last-file)
            (setq companion4j--last-file path)
            (companion4j--post `((type . "focus") (path . ,path)))
            (companion4j--report-diagnostics-now))
          (let* ((pos (companion4j--position (window-point)))
                 (cursor (list path (car pos) (cdr pos))))
            (unless (equal cursor companion4j--last-cursor)
              (setq companion4j--last-cursor cursor)
              (companion4j--post `((type . "cursor") (path . ,path)
                                   (line . ,(car pos)) (character . ,(cdr pos))))))
          (let* ((region (use-region-p))
                 (text (if region
                           (let ((s (buffer-substring-no-properties (region-beginning) (region-end))))
                             (substring s 0 (min (length s) companion4j--max-selection)))
                         ""))
                 (selection (list path text)))
            (unless (or (equal selection companion4j--last-selection)
                        (and (null companion4j--last-selection) (string-empty-p text)))
              (setq companion4j--last-selection selection)
              (companion4j--post
               (if region
                   `((type . "selection") (path . ,path) (text . ,text)
                     (range . ,(companion4j--range (region-beginning) (region-end))))
                 `((type . "selection") (path . ,path) (text . "")))))))))))

(defun companion4j--on-command ()
  "Report once Emacs has rested for `companion4j-cursor-delay'."
  (when companion4j--report-timer (cancel-timer companion4j--report-timer))
  (setq companion4j--report-timer
        (run-with-idle-timer companion4j-cursor-delay nil #'companion4j--report)))

(defun companion4j--report-later ()
  "Report after `companion4j-cursor-delay' seconds, when no command ran.
An idle timer would wait for the next idle period when Emacs has been
idle longer than the delay already, e.g. when a timer changed the window."
  (when companion4j--report-timer (cancel-timer companion4j--report-timer))
  (setq companion4j--report-timer
        (run-with-timer companion4j-cursor-delay nil #'companion4j--report)))

(defconst companion4j--max-unsaved-bytes (* 1024 1024)
  "The companion refuses an unsaved text longer than this, in characters.
A byte is at most one character: past it only the state goes, and the
agent reads the disk.")

(defvar-local companion4j--told-dirty nil
  "Whether the companion was last told that this buffer is unsaved.")
(defvar companion4j--typed-in nil "The buffer whose unsaved text waits for typing to rest.")
(defvar companion4j--text-timer nil)

(defun companion4j--report-dirty ()
  "Tell whether this buffer has unsaved changes, and while it has, its text.
The companion's chat agent reads the text instead of the disk.  A buffer
never said to be dirty is not said to be saved."
  (let ((path (companion4j--file))
        (dirty (buffer-modified-p)))
    (when (and path (or dirty companion4j--told-dirty) companion4j--attached)
      (setq companion4j--told-dirty dirty)
      (let ((text (and dirty (save-restriction
                               (widen)
                               (buffer-substring-no-properties (point-min) (point-max))))))
        (companion4j--post
         `((type . "dirty") (path . ,path) (dirty . ,(if dirty t :false))
           ,@(and text (<= (string-bytes text) companion4j--max-unsaved-bytes) `((text . ,text)))))))))

(defun companion4j--report-typed ()
  "Report the buffer typed in, now that typing rests."
  (setq companion4j--text-timer nil)
  (let ((buffer companion4j--typed-in))
    (setq companion4j--typed-in nil)
    (when (buffer-live-p buffer)
      (with-current-buffer buffer (companion4j--report-dirty)))))

(defun companion4j--text-changed (&rest _)
  "This buffer's text changed: report it once typing rests.
A change in another buffer reports the waiting one at once."
  ;; Only the name is checked at every change; the file on disk, once typing rests.
  (when (and companion4j-mode companion4j--attached buffer-file-name (not companion4j--proposal-id))
    (unless (memq companion4j--typed-in (list nil (current-buffer)))
      (companion4j--report-typed))
    (setq companion4j--typed-in (current-buffer))
    (when companion4j--text-timer (cancel-timer companion4j--text-timer))
    (setq companion4j--text-timer
          (run-with-idle-timer companion4j-cursor-delay nil #'companion4j--report-typed))))

(defun companion4j--saved ()
  "This buffer was saved or reverted: the disk holds the file."
  (when (and companion4j-mode companion4j--told-dirty)
    (companion4j--report-dirty)))

(defun companion4j--on-kill-buffer ()
  "Tell the companion that a file's buffer closed."
  (let ((path (companion4j--file)))
    (when path
      (when (equal path companion4j--last-file)
        (companion4j--forget-reports))
      (companion4j--post `((type . "close") (path . ,path))))))

;;;; Diagnostics

(defvar-local companion4j--last-diagnostics 'none
  "The diagnostics last reported for this buffer's file.")
(defvar-local companion4j--diagnostics-timer nil)

(defun companion4j--flymake-diagnostics ()
  "Flymake's diagnostics of this buffer, as the companion wants them."
  (mapcar
   (lambda (d)
     (let* ((type (flymake-diagnostic-type d))
            (category (get type 'flymake-category))
            (severity (cond ((or (eq type :error) (eq category 'flymake-error)) "error")
                            ((or (eq type :warning) (eq category 'flymake-warning)) "warning")
                            (t "information"))))
       `((range . ,(companion4j--range (flymake-diagnostic-beg d) (flymake-diagnostic-end d)))
         (severity . ,severity)
         (message . ,(flymake-diagnostic-text d))
         (source . ,(format "%s" (flymake-diagnostic-backend d))))))
   (flymake-diagnostics)))

(defun companion4j--flycheck-diagnostics ()
  "Flycheck's diagnostics of this buffer, as the companion wants them."
  (mapcar
   (lambda (e)
     (let* ((line (or (flycheck-error-line e) 1))
            (column (or (flycheck-error-column e) 1)))
       `((range . ((startLine . ,line) (startCharacter . ,column)
                   (endLine . ,(or (flycheck-error-end-line e) line))
                   (endCharacter . ,(or (flycheck-error-end-column e) (1+ column)))))
         (severity . ,(pcase (flycheck-error-level e)
                        ('error "error") ('warning "warning") (_ "information")))
         (message . ,(or (flycheck-error-message e) ""))
         (source . ,(format "%s" (flycheck-error-checker e))))))
   (flycheck-current-errors)))

(defun companion4j--report-diagnostics-now ()
  "Report this buffer's whole diagnostics list if it changed."
  (setq companion4j--diagnostics-timer nil)
  (let ((path (companion4j--file)))
    (when (and companion4j-mode path)
      (let ((diagnostics
             (cond ((bound-and-true-p flymake-mode) (companion4j--flymake-diagnostics))
                   ((and (bound-and-true-p flycheck-mode) (fboundp 'flycheck-current-errors))
                    (companion4j--flycheck-diagnostics))
                   (t 'none))))
        (unless (or (eq diagnostics 'none) (equal diagnostics companion4j--last-diagnostics))
          (setq companion4j--last-diagnostics diagnostics)
          (companion4j--post `((type . "diagnostics") (path . ,path)
                               (diagnostics . ,(vconcat diagnostics)))))))))

(defun companion4j--diagnostics-changed (&rest _)
  "Report this buffer's diagnostics soon, once its checker is done."
  (when (and companion4j-mode (companion4j--file))
    (let ((buffer (current-buffer)))
      (when companion4j--diagnostics-timer (cancel-timer companion4j--diagnostics-timer))
      (setq companion4j--diagnostics-timer
            (run-with-timer 0.2 nil
                            (lambda ()
                              (when (buffer-live-p buffer)
                                (with-current-buffer buffer
                                  (companion4j--report-diagnostics-now)))))))))

;;;; Opening files the CLI shows

(defun companion4j--review-window-p (window)
  "Return non-nil when WINDOW displays a proposal or its diff."
  (buffer-local-value 'companion4j--proposal-id (window-buffer window)))

(defun companion4j--open-file (event)
  "Visit the file of the openFile EVENT at its line and character."
  (let* ((path (alist-get 'path event))
         (line (alist-get 'line event))
         (character (alist-get 'character event))
         (window (if (companion4j--review-window-p (selected-window))
                     (or (cl-find-if-not #'companion4j--review-window-p (window-list nil 'nomini))
                         (selected-window))
                   (selected-window))))
    (if (not (companion4j--path-p path))
        (message "companion4j: refused to open a file that is not an absolute path without control characters")
      (select-window window)
      (find-file path)
      (when line
        (goto-char (point-min))
        (forward-line (1- line))
        (when character
          (forward-char (min (1- character) (- (line-end-position) (point))))))
      ;; No command ran, so no command hook reports the new place.
      (companion4j--report-later)
      (message "companion4j: %s" (abbreviate-file-name path)))))

;;;; Reviewing proposals

(defvar companion4j--saved-windows nil
  "The window configuration before the first proposal opened.")

(defvar-local companion4j--answered nil
  "Non-nil once this proposal was answered or closed, so killing it says nothing.")
(defvar-local companion4j--diff-timer nil)

(defun companion4j--proposal (id)
  "The open proposal with ID."
  (cl-find id companion4j--proposals :key (lambda (p) (plist-get p :id)) :test #'equal))

(defun companion4j--relative (path)
  "PATH relative to `companion4j--cwd' when it lies inside, else abbreviated."
  (if (companion4j--inside-p path (companion4j--cwd))
      (file-relative-name path (companion4j--cwd))
    (abbreviate-file-name path)))

(defun companion4j--mode-for (path)
  "The major mode for a file named PATH."
  (let ((buffer (find-buffer-visiting path)))
    (if buffer
        (buffer-local-value 'major-mode buffer)
      (let ((mode (assoc-default path auto-mode-alist #'string-match)))
        (when (consp mode) (setq mode (car mode)))
        (if (functionp mode) mode #'fundamental-mode)))))

(defvar companion4j-proposal-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'companion4j-accept)
    (define-key map (kbd "C-c C-k") #'companion4j-reject)
    (define-key map (kbd "C-c C-d") #'companion4j-ediff)
    (define-key map [remap save-buffer] #'companion4j-accept)
    map)
  "Keys of a proposal buffer.")

(define-minor-mode companion4j-proposal-mode
  "A CLI's proposed edit: \\<companion4j-proposal-mode-map>\\[companion4j-accept] \
accepts it as the buffer has it, \\[companion4j-reject] rejects it.
Killing the buffer rejects it too.  This package never writes the file;
the CLI does once you accept."
  :lighter " Proposal"
  (if companion4j-proposal-mode
      (add-hook 'kill-buffer-hook #'companion4j--proposal-killed nil t)
    (remove-hook 'kill-buffer-hook #'companion4j--proposal-killed t)))

(defun companion4j--diff-id-p (id)
  "Non-nil when ID is a diff id: sixteen hex digits (the engine's DiffId).
Only such an id goes into a request line or a buffer name."
  (and (stringp id) (string-match-p "\\`[0-9a-f]\\{16\\}\\'" id)))

(defun companion4j--path-p (path)
  "Non-nil when PATH is absolute and without control characters."
  (and (stringp path) (string-prefix-p "/" path) (not (string-match-p "[[:cntrl:]\177]" path))))

(defun companion4j--open-proposal (diff)
  "Show the proposal DIFF (a diff object from the companion) for review."
  (let ((id (alist-get 'id diff))
        (path (alist-get 'filePath diff)))
    (cond
     ((not (companion4j--diff-id-p id))
      (message "companion4j: refused a proposal whose id is not sixteen hex digits"))
     ((not (companion4j--path-p path))
      (message "companion4j: refused a proposal whose file is not an absolute path without control characters"))
     ((not (stringp (alist-get 'newContent diff)))
      (message "companion4j: refused a proposal without its text"))
     ((not (companion4j--proposal id))
      (let* ((rel (companion4j--relative path))
             (client (or (alist-get 'clientName diff) "The CLI"))
             (buffer (generate-new-buffer (format "*companion4j: %s*" rel)))
             (diff-buffer (generate-new-buffer (format "*companion4j diff: %s*" rel)))
             (proposal (list :id id :file path :rel rel :client client
                             :buffer buffer :diff diff-buffer
                             :change (alist-get 'change diff))))
        (with-current-buffer buffer
          (insert (or (alist-get 'newContent diff) ""))
          (goto-char (point-min))
          (ignore-errors (funcall (companion4j--mode-for path)))
          (setq companion4j--proposal-id id)
          (companion4j-proposal-mode 1)
          (set-buffer-modified-p nil)
          (add-hook 'after-change-functions #'companion4j--proposal-edited nil t))
        (with-current-buffer diff-buffer
          (setq companion4j--proposal-id id))
        (setq companion4j--proposals (append companion4j--proposals (list proposal)))
        (companion4j--refresh-diff proposal)
        (companion4j--show-proposal proposal)
        (companion4j--redisplay-mode-line)
        (message "companion4j: %s proposes an edit to %s: C-c C-c accepts, C-c C-k rejects"
                 client rel))))))

(defun companion4j--original-buffer (proposal)
  "The buffer of PROPOSAL's file, or an empty one when the file is new."
  (let ((path (plist-get proposal :file)))
    (if (file-exists-p path)
        (find-file-noselect path)
      (let ((buffer (get-buffer-create (format "*companion4j: %s (new file)*"
                                               (plist-get proposal :rel)))))
        (with-current-buffer buffer
          (setq companion4j--proposal-id (plist-get proposal :id))
          (setq buffer-read-only t))
        buffer))))

(defun companion4j--show-proposal (proposal)
  "Lay out the file, PROPOSAL and their diff in the selected frame."
  (unless (cl-some (lambda (w) (companion4j--review-window-p w)) (window-list nil 'nomini))
    (setq companion4j--saved-windows (current-window-configuration)))
  (when (window-minibuffer-p) (select-window (get-largest-window)))
  (delete-other-windows)
  (let* ((top (selected-window))
         (below (split-window top (- (max 8 (/ (window-total-height top) 3))) 'below))
         (right (split-window top nil 'right)))
    (set-window-buffer top (companion4j--original-buffer proposal))
    (set-window-buffer right (plist-get proposal :buffer))
    (set-window-buffer below (plist-get proposal :diff))
    (with-selected-window below (goto-char (point-min)))
    (select-window right)))

(defun companion4j--proposal-edited (&rest _)
  "Refresh the diff of this proposal shortly after an edit."
  (let ((proposal (companion4j--proposal companion4j--proposal-id)))
    (when proposal
      (when companion4j--diff-timer (cancel-timer companion4j--diff-timer))
      (setq companion4j--diff-timer
            (run-with-idle-timer 0.3 nil #'companion4j--refresh-diff proposal)))))

(defun companion4j--refresh-diff (proposal)
  "Write the unified diff of PROPOSAL's file and proposal into its diff buffer."
  (let ((diff-buffer (plist-get proposal :diff))
        (buffer (plist-get proposal :buffer))
        (path (plist-get proposal :file))
        (rel (plist-get proposal :rel))
        (old (make-temp-file "companion4j-old"))
        (new (make-temp-file "companion4j-new")))
    (when (and (buffer-live-p diff-buffer) (buffer-live-p buffer))
      (unwind-protect
          (progn
            (let ((visiting (find-buffer-visiting path))
                  (coding-system-for-write 'utf-8-unix))
              (cond (visiting (with-current-buffer visiting
                                (write-region nil nil old nil 'silent)))
                    ((file-exists-p path) (copy-file path old t))))
            (let ((coding-system-for-write 'utf-8-unix))
              (with-current-buffer buffer
                (write-region nil nil new nil 'silent)))
            (with-current-buffer diff-buffer
              (let ((inhibit-read-only t)
                    (coding-system-for-read 'utf-8-unix))
                (erase-buffer)
                (companion4j--insert-diff rel old new)
                (when (= (buffer-size) 0)
                  (insert "The proposal is the same as the file.\n")))
              (unless (derived-mode-p 'diff-mode)
                (diff-mode)
                (setq companion4j--proposal-id (plist-get proposal :id)))
              (setq buffer-read-only t)
              (set-buffer-modified-p nil)
              ;; Here, not in the proposal, so that the file and the proposal stay aligned.
              (setq header-line-format
                    (format " %s proposes this edit to %s.  In the proposal: C-c C-c accept, C-c C-k reject, C-c C-d ediff"
                            (plist-get proposal :client) rel))))
        (delete-file old)
        (delete-file new)))))

(defun companion4j--insert-diff (rel old new)
  "Insert the unified diff of the files OLD and NEW, both labelled REL."
  (let ((coding-system-for-read 'utf-8-unix))
    (call-process diff-command nil t nil "-u"
                  "--label" (concat "a/" rel) "--label" (concat "b/" rel) old new)))

(defun companion4j--close-proposal (proposal)
  "Close PROPOSAL's buffers without answering it."
  (setq companion4j--proposals (delq proposal companion4j--proposals))
  (let ((buffer (plist-get proposal :buffer)))
    (when (buffer-live-p buffer)
      (with-current-buffer buffer
        (setq companion4j--answered t)
        (when companion4j--diff-timer (cancel-timer companion4j--diff-timer)))
      (kill-buffer buffer)))
  (when (buffer-live-p (plist-get proposal :diff))
    (kill-buffer (plist-get proposal :diff)))
  (let ((new (get-buffer (format "*companion4j: %s (new file)*" (plist-get proposal :rel)))))
    (when new (kill-buffer new)))
  (cond
   (companion4j--proposals
    (companion4j--show-proposal (car companion4j--proposals)))
   (companion4j--saved-windows
    (ignore-errors (set-window-configuration companion4j--saved-windows))
    (setq companion4j--saved-windows nil)))
  (companion4j--report-later)
  (companion4j--redisplay-mode-line))

(defun companion4j--reload-later (path)
  "Revert PATH's buffer once the CLI wrote the accepted file, unless modified."
  (dolist (delay '(0.5 1.5 3 6))
    (run-with-timer
     delay nil
     (lambda ()
       (let ((buffer (find-buffer-visiting path)))
         (when (and buffer (not (buffer-modified-p buffer)) (file-exists-p path)
                    (not (verify-visited-file-modtime buffer)))
           (with-current-buffer buffer
             (revert-buffer t t t))))))))

(defun companion4j--answer (proposal accept)
  "Answer PROPOSAL: ACCEPT it with its buffer's text, or reject it.
Return non-nil when the proposal closed."
  (let* ((buffer (plist-get proposal :buffer))
         (answer (companion4j--request-sync
                  (if accept "accept" "reject")
                  `((diff . ,(plist-get proposal :id))
                    ,@(and accept
                           `((content . ,(with-current-buffer buffer
                                           (save-restriction
                                             (widen)
                                             (buffer-substring-no-properties (point-min) (point-max))))))))))
         (failure (companion4j--failure answer)))
    (cond
     ;; Only these errors say that the proposal is over; after any other, an answer may still reach it.
     ((and failure (not (member (alist-get 'code (alist-get 'error answer)) '("ended" "clientGone" "unknownDiff"))))
      (message "companion4j: %s; the proposal stays open, try again" failure)
      nil)
     (t
      (companion4j--close-proposal proposal)
      (cond
       (failure (message "companion4j: %s" failure))
       (accept (companion4j--reload-later (plist-get proposal :file))
               (message "companion4j: accepted; %s writes %s"
                        (plist-get proposal :client) (plist-get proposal :rel)))
       (t (message "companion4j: rejected the edit to %s" (plist-get proposal :rel))))
      t))))

(defun companion4j--current-proposal ()
  "The proposal of the current buffer, or of the one open, or an error."
  (or (companion4j--proposal companion4j--proposal-id)
      (and (= (length companion4j--proposals) 1) (car companion4j--proposals))
      (user-error "companion4j: no proposal here")))

;;;###autoload
(defun companion4j-accept ()
  "Accept the proposal in this buffer as it is now, your edits included.
The CLI writes the file; this package does not."
  (interactive)
  (companion4j--answer (companion4j--current-proposal) t))

;;;###autoload
(defun companion4j-reject ()
  "Reject the proposal in this buffer."
  (interactive)
  (companion4j--answer (companion4j--current-proposal) nil))

;;;###autoload
(defun companion4j-ediff ()
  "Compare the file and the proposal in this buffer with ediff.
Edit the proposal there, then accept it with \\[companion4j-accept] in it."
  (interactive)
  (let ((proposal (companion4j--current-proposal)))
    (require 'ediff)
    (ediff-buffers (companion4j--original-buffer proposal) (plist-get proposal :buffer))))

(defun companion4j--proposal-killed ()
  "Reject the proposal whose buffer is being killed, unless it was answered."
  (unless companion4j--answered
    (setq companion4j--answered t)
    (let ((proposal (companion4j--proposal companion4j--proposal-id)))
      (when proposal
        (let ((failure (companion4j--failure
                        (companion4j--request-sync "reject" `((diff . ,(plist-get proposal :id)))))))
          (run-at-time 0 nil #'companion4j--close-proposal proposal)
          (message "companion4j: %s"
                   (or failure (format "rejected the edit to %s" (plist-get proposal :rel)))))))))

(defun companion4j--why (outcome)
  "Words for the OUTCOME of a proposal the CLI closed."
  (pcase outcome
    ("accepted" "it was accepted")
    ("rejected" "it was rejected")
    ("closedByClient" "withdrawn by the CLI")
    ("replaced" "replaced by a newer proposal")
    ("clientGone" "its CLI left")
    ("stopped" "the companion stopped")
    (_ (format "%s" outcome))))

(defun companion4j--proposal-closed-by-cli (event)
  "Close the proposal of the diffClosed EVENT, saying why."
  (let ((proposal (companion4j--proposal (alist-get 'id event))))
    (when proposal
      (companion4j--close-proposal proposal)
      (message "companion4j: the proposal for %s closed: %s"
               (plist-get proposal :rel) (companion4j--why (alist-get 'outcome event))))))

;;;###autoload
(defun companion4j-proposals ()
  "The open proposals, oldest first: plists (:id ID :file PATH :buffer BUFFER)."
  (mapcar (lambda (p) (list :id (plist-get p :id) :file (plist-get p :file)
                            :buffer (plist-get p :buffer)))
          companion4j--proposals))

;;;; Reviewing a change of several files

(defvar companion4j--changes nil
  "The changes of several files under review, oldest first.
Each is a plist (:id :buffer :files :proposer), :files their paths.")

(defvar-local companion4j--change-id nil "The id of the change this buffer shows.")

(defvar companion4j-change-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'companion4j-accept-change)
    (define-key map (kbd "C-c C-k") #'companion4j-reject-change)
    map)
  "Keys of a change's buffer.")

(define-derived-mode companion4j-change-mode diff-mode "C4J change"
  "A change of several files proposed as one, e.g. a rename, with diffs.
\\<companion4j-change-mode-map>\\[companion4j-accept-change] accepts every file, \\[companion4j-reject-change] rejects them all;
killing the buffer rejects it too.  The companion writes the files once
accepted, and this package reloads their buffers without unsaved changes."
  (setq buffer-read-only t)
  (add-hook 'kill-buffer-hook #'companion4j--change-killed nil t))

(defun companion4j--change (id)
  "The change under review with ID."
  (cl-find id companion4j--changes :key (lambda (c) (plist-get c :id)) :test #'equal))

(defun companion4j--insert-texts-diff (rel old new)
  "Insert the unified diff of the texts OLD and NEW, both labelled REL."
  (let ((old-file (make-temp-file "companion4j-old"))
        (new-file (make-temp-file "companion4j-new"))
        (coding-system-for-write 'utf-8-unix))
    (unwind-protect
        (progn
          (write-region old nil old-file nil 'silent)
          (write-region new nil new-file nil 'silent)
          (companion4j--insert-diff rel old-file new-file))
      (delete-file old-file)
      (delete-file new-file))))

(defun companion4j--open-change (change)
  "Show CHANGE (a change object from the companion) for review as one unit."
  (let ((id (alist-get 'id change))
        (files (alist-get 'files change)))
    (cond
     ((not (companion4j--diff-id-p id))
      (message "companion4j: refused a change whose id is not sixteen hex digits"))
     ((not (and (consp files)
                (cl-every (lambda (f) (and (companion4j--path-p (alist-get 'path f))
                                           (stringp (alist-get 'newContent f))))
                          files)))
      (message "companion4j: refused a change whose files are not absolute paths with their text"))
     ((not (companion4j--change id))
      (let* ((proposer (or (alist-get 'proposerName change) "The companion"))
             (count (format "%d file%s" (length files) (if (cdr files) "s" "")))
             (buffer (generate-new-buffer (format "*companion4j change: %s*" proposer))))
        (with-current-buffer buffer
          (insert (format "%s proposes one change of %s:\n" proposer count))
          (dolist (f files)
            (insert (format "  %s (%s)\n" (companion4j--relative (alist-get 'path f))
                            (or (alist-get 'change f) "modified"))))
          (insert "C-c C-c accepts every file, C-c C-k rejects them all.\n\n")
          (dolist (f files)
            (companion4j--insert-texts-diff (companion4j--relative (alist-get 'path f))
                                            (or (alist-get 'originalContent f) "")
                                            (alist-get 'newContent f)))
          (companion4j-change-mode)
          (setq companion4j--change-id id)
          (set-buffer-modified-p nil)
          (goto-char (point-min)))
        (setq companion4j--changes
              (append companion4j--changes
                      (list (list :id id :buffer buffer :proposer proposer :count count
                                  :files (mapcar (lambda (f) (alist-get 'path f)) files)))))
        (pop-to-buffer buffer)
        (companion4j--redisplay-mode-line)
        (message "companion4j: %s proposes a change of %s: C-c C-c accepts, C-c C-k rejects"
                 proposer count))))))

(defun companion4j--sync-changes (pending)
  "Show the PENDING changes of a companion just attached; close the others."
  (let ((ids (mapcar (lambda (c) (alist-get 'id c)) pending)))
    (dolist (change (copy-sequence companion4j--changes))
      (unless (member (plist-get change :id) ids)
        (companion4j--change-closed `((id . ,(plist-get change :id)) (outcome . "stopped")))))
    (mapc #'companion4j--open-change pending)))

(defun companion4j--close-change (change)
  "Close CHANGE's buffer without answering it."
  (setq companion4j--changes (delq change companion4j--changes))
  (let ((buffer (plist-get change :buffer)))
    (when (buffer-live-p buffer)
      (with-current-buffer buffer
        (setq companion4j--change-id nil))
      (kill-buffer buffer)))
  (companion4j--redisplay-mode-line))

(defun companion4j--answer-change (change accept)
  "ACCEPT CHANGE (every file as proposed) or reject it.
Return non-nil when the change closed."
  (let* ((answer (companion4j--request-sync (if accept "acceptChange" "rejectChange")
                                            `((change . ,(plist-get change :id)))))
         (failure (companion4j--failure answer)))
    (cond
     ;; Only these errors say that the change is over; after any other, an answer may still reach it.
     ((and failure (not (member (alist-get 'code (alist-get 'error answer))
                                '("ended" "unknownChange" "changedOnDisk"))))
      (message "companion4j: %s; the change stays open, try again" failure)
      nil)
     (t
      (companion4j--close-change change)
      (cond
       (failure (message "companion4j: %s" failure))
       (accept (mapc #'companion4j--reload-later (plist-get change :files))
               (message "companion4j: accepted; the companion writes %s" (plist-get change :count)))
       (t (message "companion4j: rejected the change of %s" (plist-get change :count))))
      t))))

(defun companion4j--current-change ()
  "The change of the current buffer, or the one under review, or an error."
  (or (companion4j--change companion4j--change-id)
      (and (= (length companion4j--changes) 1) (car companion4j--changes))
      (user-error "companion4j: no change here")))

;;;###autoload
(defun companion4j-accept-change ()
  "Accept the change in this buffer: every one of its files is written."
  (interactive)
  (companion4j--answer-change (companion4j--current-change) t))

;;;###autoload
(defun companion4j-reject-change ()
  "Reject the change in this buffer: none of its files is written."
  (interactive)
  (companion4j--answer-change (companion4j--current-change) nil))

(defun companion4j--change-killed ()
  "Reject the change whose buffer is being killed, unless it closed."
  (let ((change (companion4j--change companion4j--change-id)))
    (when change
      (setq companion4j--change-id nil)
      (let ((failure (companion4j--failure
                      (companion4j--request-sync "rejectChange" `((change . ,(plist-get change :id)))))))
        (setq companion4j--changes (delq change companion4j--changes))
        (companion4j--redisplay-mode-line)
        (message "companion4j: %s"
                 (or failure (format "rejected the change of %s" (plist-get change :count))))))))

(defun companion4j--change-closed (event)
  "Close the change of the changeClosed EVENT, saying why; reload accepted files."
  (let ((change (companion4j--change (alist-get 'id event)))
        (outcome (alist-get 'outcome event)))
    (when change
      (companion4j--close-change change)
      (when (equal outcome "accepted")
        (mapc #'companion4j--reload-later (plist-get change :files)))
      (message "companion4j: the change of %s closed: %s" (plist-get change :count)
               (if (equal outcome "changedOnDisk")
                   "files changed on disk since it was proposed; nothing was written"
                 (companion4j--why outcome))))))

;;;###autoload
(defun companion4j-changes ()
  "The changes under review, oldest first.
Each is a plist (:id ID :files PATHS :buffer BUFFER)."
  (mapcar (lambda (c) (list :id (plist-get c :id) :files (plist-get c :files)
                            :buffer (plist-get c :buffer)))
          companion4j--changes))

;;;; Questions about code

(defconst companion4j--max-code-results 1000
  "The most places one answer carries; the companion passes on fewer.")

(defconst companion4j--max-line-text 2000
  "The most characters of a line's text an answer carries.")

(defun companion4j--answer-code-query (query)
  "Answer the codeQuery QUERY from xref, or say why Emacs cannot.
Every query with an id of its form gets an answer: one left unanswered
keeps the model waiting until the companion gives up."
  (let ((id (alist-get 'id query)))
    (when (companion4j--diff-id-p id)
      (let ((answer (condition-case err
                        `((results . ,(companion4j--find-code query)))
                      (error `((error . ,(error-message-string err)))))))
        ;; A refusal of the answer means another editor answered first: no news for the user.
        (companion4j--request "codeAnswer" `((id . ,id) ,@answer) #'ignore)))))

(defun companion4j--find-code (query)
  "The places xref finds for QUERY, as a vector of result alists.
Signal an error that says why when Emacs cannot answer it."
  (let ((kind (alist-get 'kind query))
        (path (alist-get 'path query))
        (line (alist-get 'line query))
        (column (alist-get 'column query)))
    (unless (member kind '("definition" "references"))
      (user-error "Emacs answers definition and references through xref; it has no %s to give"
                  (if (stringp kind) kind "such query")))
    (unless (and (companion4j--path-p path) (file-regular-p path)
                 (natnump line) (natnump column) (> line 0) (> column 0))
      (user-error "A query names an absolute file and a 1-based line and column"))
    (let ((buffers (buffer-list))
          (kill-buffer-hook nil))
      (unwind-protect
          (with-current-buffer (find-file-noselect path)
            (save-excursion
              (save-restriction
                (widen)
                (goto-char (point-min))
                (forward-line (1- line))
                (forward-char (min (1- column) (- (line-end-position) (point))))
                (companion4j--xref kind path))))
        ;; The files opened only to answer close again, unknown to the companion.
        (dolist (buffer (buffer-list))
          (unless (or (memq buffer buffers) (buffer-modified-p buffer)
                      (not (buffer-file-name buffer)))
            (kill-buffer buffer)))))))

(defun companion4j--xref (kind path)
  "The places xref finds for KIND at point in PATH's buffer, as a vector."
  (require 'etags)
  (let* ((backend (xref-find-backend))
         ;; The tags table of the file's tree, else the user's; bound here, so that visiting
         ;; it leaves the user's list of tables as it was.
         (tags (locate-dominating-file path "TAGS"))
         (tags-file-name (if tags (expand-file-name "TAGS" tags) tags-file-name))
         (tags-table-list (if tags (list tags-file-name) tags-table-list))
         (root (cl-find-if (lambda (r) (companion4j--inside-p path r)) companion4j--workspace))
         ;; Without a project, xref would ask where to search: the companion's workspace it is.
         (project-find-functions
          (append project-find-functions
                  (list (lambda (_dir)
                          (cons 'transient (file-name-as-directory
                                            (or root (file-name-directory path))))))))
         (identifier (and backend (xref-backend-identifier-at-point backend))))
    (when (and (eq backend 'etags) (equal kind "definition") (null tags-file-name) (null tags-table-list))
      (user-error "Emacs has no language server (eglot) for %s and no tags table (TAGS) to find definitions in"
                  (file-name-nondirectory path)))
    (unless identifier
      (user-error "There is no symbol at this place in %s" (file-name-nondirectory path)))
    (let ((items (if (equal kind "definition")
                     (xref-backend-definitions backend identifier)
                   (xref-backend-references backend identifier))))
      (vconcat (mapcar (lambda (item) (companion4j--code-result item (equal kind "definition")))
                       (seq-take items companion4j--max-code-results))))))

(defun companion4j--code-result (item declaration)
  "The result alist for the xref ITEM; DECLARATION when it declares the symbol."
  (let ((marker (xref-location-marker (xref-item-location item))))
    (with-current-buffer (marker-buffer marker)
      (save-excursion
        (save-restriction
          (widen)
          (goto-char marker)
          (let ((text (buffer-substring-no-properties (line-beginning-position) (line-end-position))))
            `((path . ,(buffer-file-name))
              (line . ,(line-number-at-pos nil t))
              (column . ,(1+ (- (point) (line-beginning-position))))
              (text . ,(substring text 0 (min (length text) companion4j--max-line-text)))
              ,@(and declaration '((declaration . t))))))))))

;;;; Mode line

(defun companion4j-mode-line ()
  "The companion's state for the mode line: \"C4J off\", \"C4J 2 CLIs\", ...."
  (if (not companion4j--attached)
      "C4J off"
    (let ((clients (length companion4j--clients))
          (review (+ (length companion4j--proposals) (length companion4j--changes))))
      (concat (format "C4J %d CLI%s" clients (if (= clients 1) "" "s"))
              (if (> review 0) (format " · %d to review" review) "")))))

(defvar companion4j-mode-line '(:eval (companion4j-mode-line))
  "A mode-line construct showing the companion's state.")
(put 'companion4j-mode-line 'risky-local-variable t)

;;;; Commands

;;;###autoload
(define-minor-mode companion4j-mode
  "Make Emacs the IDE of the CLIs connected to a running companion4j.
Reports the file in the selected window, point, the region, unsaved
changes and the diagnostics of flymake (and flycheck when loaded),
opens the edits a CLI proposes for review and the places it shows.
See the Commentary of the package: \\[finder-commentary] companion4j."
  :global t
  :group 'companion4j
  :lighter (" " companion4j-mode-line)
  (if companion4j-mode
      (progn
        (add-hook 'post-command-hook #'companion4j--on-command)
        (add-hook 'kill-buffer-hook #'companion4j--on-kill-buffer)
        (add-hook 'after-change-functions #'companion4j--text-changed)
        (add-hook 'after-save-hook #'companion4j--saved)
        (add-hook 'after-revert-hook #'companion4j--saved)
        (add-hook 'kill-emacs-hook #'companion4j--quit)
        (advice-add 'flymake--handle-report :after #'companion4j--diagnostics-changed)
        (with-eval-after-load 'flycheck
          (add-hook 'flycheck-after-syntax-check-hook #'companion4j--diagnostics-changed))
        (companion4j--launch))
    (remove-hook 'post-command-hook #'companion4j--on-command)
    (remove-hook 'kill-buffer-hook #'companion4j--on-kill-buffer)
    (remove-hook 'after-change-functions #'companion4j--text-changed)
    (remove-hook 'after-save-hook #'companion4j--saved)
    (remove-hook 'after-revert-hook #'companion4j--saved)
    (remove-hook 'kill-emacs-hook #'companion4j--quit)
    (advice-remove 'flymake--handle-report #'companion4j--diagnostics-changed)
    (remove-hook 'flycheck-after-syntax-check-hook #'companion4j--diagnostics-changed)
    (companion4j--quit)
    (setq companion4j--attached nil companion4j--clients nil companion4j--reason nil)
    (companion4j--redisplay-mode-line)))

;;;###autoload
(defun companion4j-start ()
  "Start a companion for `companion4j-directory' unless one serves it.
It runs inside the `companion4j attach' process of this Emacs, and stops
when Emacs exits."
  (interactive)
  (setq companion4j--start t)
  (if (null companion4j--transport)
      ;; Said again, even when it is what was said last.
      (progn (setq companion4j--said nil) (companion4j-mode 1))
    (companion4j--request
     "start" nil
     (lambda (answer)
       (let ((failure (companion4j--failure answer))
             (dir (abbreviate-file-name (companion4j--cwd))))
         (cond
          (failure (message "companion4j: cannot start a companion: %s" failure))
          ((not (alist-get 'started (alist-get 'result answer)))
           (message "companion4j: a companion already serves %s at %s"
                    dir (companion4j--address (alist-get 'port (alist-get 'result answer)))))))))))

(defconst companion4j--terminal-forms
  '(("QWEN_CODE_IDE_SERVER_PORT" . "\\`[0-9]\\{1,5\\}\\'")
    ("GEMINI_CLI_IDE_SERVER_PORT" . "\\`[0-9]\\{1,5\\}\\'")
    ("QWEN_CODE_IDE_WORKSPACE_PATH" . "\\`[^[:cntrl:]\177]*\\'")
    ("GEMINI_CLI_IDE_WORKSPACE_PATH" . "\\`[^[:cntrl:]\177]*\\'")
    ("GEMINI_CLI_IDE_AUTH_TOKEN" . "\\`[^[:cntrl:]\177]*\\'")
    ("REMOTE_CONTAINERS" . "\\`[^[:cntrl:]\177]*\\'"))
  "The variables a terminal takes from attach's `terminal' answer, and their form.
They are the IDE's (Companion.terminalEnvironment); any other name, such as
NODE_OPTIONS, would run what it names.")

(defun companion4j--terminal-variables (all)
  "The IDE's variables in ALL, the `terminal' answer as an alist.
A cons (KEPT . DROPPED): KEPT are \"NAME=value\" strings, DROPPED the
sorted names not the IDE's or not of their form; nil when ALL is not an
object of names."
  (let (kept dropped)
    (when (and (consp all) (cl-every (lambda (p) (and (consp p) (symbolp (car p)))) all))
      (dolist (pair all)
        (let* ((name (symbol-name (car pair)))
               (form (cdr (assoc name companion4j--terminal-forms))))
          (if (and form (stringp (cdr pair)) (string-match-p form (cdr pair)))
              (push (concat name "=" (cdr pair)) kept)
            (push (replace-regexp-in-string "[[:cntrl:]\177]" "?" name) dropped))))
      (cons (nreverse kept) (sort dropped #'string<)))))

;;;###autoload
(defun companion4j-run (command)
  "Run COMMAND, a CLI such as \"qwen\", in a terminal connected to the companion.
The companion's variables go into the terminal's environment, not on
its command line."
  (interactive (list (read-string "Run CLI: " companion4j-run-command)))
  (unless companion4j--attached
    (user-error "companion4j: %s" (companion4j--no-companion)))
  (let* ((answer (companion4j--request-sync "terminal" nil))
         (failure (companion4j--failure answer))
         (variables (and (not failure) (companion4j--terminal-variables (alist-get 'result answer)))))
    (when failure
      (user-error "companion4j: %s" failure))
    (unless variables
      (user-error "companion4j: the companion's terminal variables are not a JSON object; nothing was started"))
    (when (cdr variables)
      (message "companion4j: ignored terminal variables that are not the IDE's: %s"
               (string-join (cdr variables) ", ")))
    (require 'term)
    (let* ((words (split-string-and-unquote command))
           (process-environment (append (car variables) process-environment))
           (default-directory (file-name-as-directory (companion4j--cwd)))
           (buffer (get-buffer-create (generate-new-buffer-name (format "*companion4j %s*" (car words))))))
      (with-current-buffer buffer
        (term-mode)
        (term-exec buffer (car words) (car words) nil (cdr words))
        (term-char-mode))
      (pop-to-buffer buffer))))

;;;###autoload
(defun companion4j-status ()
  "Say which companion Emacs follows, its CLIs and the proposals open."
  (interactive)
  (if (null companion4j--attached)
      (message "companion4j: %s" (companion4j--no-companion))
    (message "companion4j: %s%s, workspace %s, following its events; CLIs: %s; proposals open: %s"
             (companion4j--address (plist-get companion4j--attached :port))
             (if (plist-get companion4j--attached :started) " (started by this Emacs)" "")
             (string-join (or companion4j--workspace (list (companion4j--cwd))) ":")
             (if companion4j--clients (string-join (mapcar #'cdr companion4j--clients) ", ") "none")
             (if companion4j--proposals
                 (string-join (mapcar (lambda (p) (plist-get p :rel)) companion4j--proposals) ", ")
               "none"))))

(provide 'companion4j)
;;; companion4j.el ends here
