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
;; as IDE context, and the edits they propose open in Emacs for review.
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
;; The companion writes owner-only discovery files, $QWEN_HOME/ide/*.lock
;; (else ~/.qwen/ide/*.lock).  The package takes the newest one whose
;; workspace contains `companion4j-directory' (by default the directory Emacs
;; started in).  COMPANION4J_EDITOR_API (http://127.0.0.1:<port>/editor) and
;; COMPANION4J_TOKEN point it at one companion instead.  Before the token
;; goes anywhere, the companion's port must prove that it holds it
;; (GET /ide/proof with a fresh random nonce): a discovery file outlives a
;; companion that was killed, and another user may then listen on its port.
;; A file that fails is skipped for the next; when none proves itself, the
;; package sends nothing, the mode line reads "C4J gone" and
;; `companion4j-status' says why.  The token is a secret: requests go
;; through Emacs's own network processes, so it never appears in a
;; process's arguments, and it is never shown in a message.
;; `companion4j-run' takes only the IDE's variables from the companion, and
;; diff ids and paths from it are used only in their documented form.
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
;; Commands: `companion4j-mode', `companion4j-start', `companion4j-run',
;; `companion4j-status', `companion4j-accept', `companion4j-reject',
;; `companion4j-ediff' and the query `companion4j-proposals'.

;;; Code:

(require 'cl-lib)
(require 'json)
(require 'subr-x)
(require 'url-parse)
(require 'diff-mode)
(require 'flymake)

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
  "Non-nil: start `companion4j serve' when none serves `companion4j-directory'.
The companion runs in the background with `companion4j-command', and
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
  "Seconds of rest after which point and the region are reported."
  :type 'number)

(defcustom companion4j-reconnect-delay 2
  "Seconds to wait before following the companion's events again."
  :type 'number)

(defcustom companion4j-request-timeout 5
  "Seconds to wait for the companion to answer an accept or reject."
  :type 'number)

(defconst companion4j--max-selection 16384
  "The longest selection text sent, in characters.")

;;;; Finding the companion

(defvar companion4j--companion nil
  "The companion in use: a plist (:host :port :prefix :token :lock), or nil.")

(defun companion4j--cwd ()
  "The directory whose companion Emacs follows, without a final slash."
  (directory-file-name
   (expand-file-name (or companion4j-directory command-line-default-directory default-directory))))

(defun companion4j--read-json (string)
  "Parse the JSON text STRING into alists and lists."
  (let ((json-object-type 'alist)
        (json-array-type 'list)
        (json-key-type 'symbol)
        (json-false nil)
        (json-null nil))
    (json-read-from-string string)))

(defun companion4j--inside-p (dir root)
  "Non-nil when DIR is ROOT or lies below it."
  (let ((root (directory-file-name root)))
    (or (string= dir root) (string-prefix-p (file-name-as-directory root) dir))))

(defun companion4j--lock-files ()
  "The companions' discovery files."
  (let ((dir (expand-file-name "ide" (or (getenv "QWEN_HOME") (expand-file-name "~/.qwen")))))
    (and (file-directory-p dir) (directory-files dir t "\\.lock\\'"))))

(defvar companion4j--gone nil
  "Why the newest companion for the directory failed its proof, or nil.")

(defun companion4j--candidates ()
  "The companions that may serve `companion4j--cwd', newest first, as plists.
None is trusted before it proves that it holds its token."
  (let ((api (getenv "COMPANION4J_EDITOR_API"))
        (token (getenv "COMPANION4J_TOKEN")))
    (if (and api token (not (string-empty-p api)) (not (string-empty-p token)))
        ;; Named by the environment, it can be as stale as a lock: it proves itself too.
        (let ((url (url-generic-parse-url api)))
          (list (list :host "127.0.0.1"
                      :port (and (member (url-host url) '("127.0.0.1" "localhost"))
                                 (equal (url-type url) "http") (url-port url))
                      :prefix (string-remove-suffix "/" (car (url-path-and-query url)))
                      :token token)))
      (let ((cwd (companion4j--cwd)) found)
        (dolist (file (companion4j--lock-files))
          (let* ((lock (ignore-errors
                         (companion4j--read-json
                          (with-temp-buffer
                            (insert-file-contents file)
                            (buffer-string)))))
                 (port (alist-get 'port lock))
                 (auth (alist-get 'authToken lock))
                 (pid (alist-get 'ppid lock))
                 (time (float-time (file-attribute-modification-time (file-attributes file)))))
            (when (and (natnump port) (< 0 port 65536) (stringp auth) (not (string-empty-p auth))
                       (cl-some (lambda (root) (companion4j--inside-p cwd root))
                                (split-string (or (alist-get 'workspacePath lock) "") ":" t)))
              (push (list :host "127.0.0.1" :port port :prefix "/editor" :token auth :lock file
                          :pid (and (natnump pid) pid) :time time)
                    found))))
        (sort found (lambda (a b) (> (plist-get a :time) (plist-get b :time))))))))

(defun companion4j--nonce ()
  "A fresh unpredictable nonce: the hex SHA-256 of 32 random bytes from GnuTLS."
  (secure-hash 'sha256 'iv-auto 32))

(defun companion4j--prove (candidate)
  "Nil when CANDIDATE's port proves that it holds its token, else why not.
Asks GET /ide/proof with a fresh nonce (docs/editor-api.md), sending
nothing secret."
  (let ((port (plist-get candidate :port))
        (pid (plist-get candidate :pid)))
    (cond
     ((null port) "its address is not a loopback port")
     ;; Where /proc shows processes, a lock whose process ended needs no question.
     ((and pid (file-directory-p "/proc/self") (not (file-directory-p (format "/proc/%d" pid))))
      (format "its process %d ended" pid))
     (t
      (let ((nonce (condition-case nil (companion4j--nonce) (error nil))))
        (if (null nonce)
            "no random numbers to ask it with: this Emacs has no GnuTLS"
          (let* ((companion4j-request-timeout 3)
                 (response (companion4j--http-sync
                            "GET" (concat "/ide/proof?nonce=" nonce) nil
                            (list :host "127.0.0.1" :port port :prefix "" :token nil)))
                 (proof (and (eql (car response) 200)
                             (ignore-errors (alist-get 'proof (companion4j--read-json (cdr response)))))))
            (cond
             ((null (car response)) "nothing answers on its port")
             ((equal proof (secure-hash 'sha256 (concat "companion4j-proof:" nonce ":"
                                                        (plist-get candidate :token))))
              nil)
             (t "another process holds its port")))))))))

(defun companion4j--find ()
  "The companion serving `companion4j--cwd' that proves itself, as a plist, or nil.
When none does, `companion4j--gone' says why the newest failed."
  (let (first-failure)
    (or (cl-loop for candidate in (companion4j--candidates)
                 for why = (companion4j--prove candidate)
                 unless why return (progn (setq companion4j--gone nil) candidate)
                 do (unless first-failure
                      (setq first-failure (format "the companion on port %s is gone (%s)"
                                                  (plist-get candidate :port) why))))
        (progn (setq companion4j--gone first-failure) nil))))

(defun companion4j--no-companion ()
  "Why no companion is followed, for messages."
  (or companion4j--gone
      (format "no companion serves %s" (abbreviate-file-name (companion4j--cwd)))))

(defun companion4j--companion ()
  "The companion in use, found (and proven) again when there is none."
  (or companion4j--companion
      (setq companion4j--companion (companion4j--find))))

(defun companion4j--address (companion)
  "COMPANION's editor API address."
  (format "http://%s:%s%s" (plist-get companion :host) (plist-get companion :port)
          (plist-get companion :prefix)))

;;;; Requests

;; Plain HTTP/1.0 over Emacs's own network processes rather than url.el:
;; url.el sends requests through the proxy an `http_proxy' variable names,
;; loopback ones too, which would hand the token to that proxy, and it cannot
;; follow an event stream as it arrives.  HTTP/1.0 answers are never chunked.

(defun companion4j--request-bytes (companion method route body)
  "The HTTP/1.0 request METHOD ROUTE with the JSON BODY for COMPANION."
  (let ((payload (if body (encode-coding-string (json-encode body) 'utf-8) ""))
        (target (concat (plist-get companion :prefix) route)))
    ;; A space or a line end would end the request line and let the rest pose as headers.
    (when (string-match-p "[[:cntrl:] \177]" target)
      (error "Refused a request for %S" target))
    (concat method " " target " HTTP/1.0\r\n"
            (format "Host: %s:%s\r\n" (plist-get companion :host) (plist-get companion :port))
            (if (plist-get companion :token)
                (concat "Authorization: Bearer " (plist-get companion :token) "\r\n")
              "")
            (if body "Content-Type: application/json\r\n" "")
            (format "Content-Length: %d\r\n\r\n" (length payload))
            payload)))

(defun companion4j--parse-response (buffer)
  "The HTTP response in BUFFER as (STATUS . BODY), STATUS nil if there is none."
  (with-current-buffer buffer
    (goto-char (point-min))
    (if (not (looking-at "HTTP/[0-9.]+ \\([0-9]+\\)"))
        (cons nil "")
      (let ((status (string-to-number (match-string 1))))
        (cons status
              (if (re-search-forward "\r?\n\r?\n" nil t)
                  (decode-coding-string (buffer-substring-no-properties (point) (point-max)) 'utf-8)
                ""))))))

(defun companion4j--http (method route &optional body callback companion)
  "Send METHOD ROUTE with the JSON BODY to COMPANION (default: the one in use).
Call CALLBACK with (STATUS . BODY); STATUS is nil when the request
failed on the network.  Return the network process, or nil."
  (let ((companion (or companion (companion4j--companion)))
        (callback (or callback #'ignore)))
    (if (null companion)
        (progn (funcall callback (cons nil (companion4j--no-companion))) nil)
      (let ((buffer (generate-new-buffer " *companion4j request*"))
            (done nil))
        (with-current-buffer buffer (set-buffer-multibyte nil))
        (condition-case err
            (let* ((request (companion4j--request-bytes companion method route body))
                   (process
                    (make-network-process
                     :name "companion4j request" :buffer buffer
                     :host (plist-get companion :host) :service (plist-get companion :port)
                     :coding 'binary :noquery t
                     :sentinel
                     (lambda (process _event)
                       (unless (or done (process-live-p process))
                         (setq done t)
                         (let ((response (companion4j--parse-response buffer)))
                           (kill-buffer buffer)
                           (unless (car response)
                             (setq companion4j--companion nil))
                           (funcall callback response)))))))
              (process-send-string process request)
              process)
          (error
           (kill-buffer buffer)
           (setq companion4j--companion nil)
           (funcall callback (cons nil (error-message-string err)))
           nil))))))

(defun companion4j--http-sync (method route &optional body companion)
  "Send METHOD ROUTE with BODY to COMPANION and wait: (STATUS . BODY)."
  (let* ((response nil)
         (process (companion4j--http method route body (lambda (r) (setq response r)) companion))
         (deadline (+ (float-time) companion4j-request-timeout)))
    (while (and (null response) process (< (float-time) deadline))
      (accept-process-output process 0.05))
    (when (and (null response) process)
      (delete-process process))
    (or response (cons nil "the companion did not answer"))))

(defun companion4j--reason (response)
  "The companion's words for the failed RESPONSE."
  (or (and (car response)
           (ignore-errors (alist-get 'error (companion4j--read-json (cdr response)))))
      (if (car response)
          (format "the companion answered %s" (car response))
        (format "the companion could not be reached (%s)" (cdr response)))))

;;;; Events to the companion

(defvar companion4j--queue nil "Events waiting to be sent, oldest first.")
(defvar companion4j--busy nil "Non-nil while an event is on its way.")

(defun companion4j--send-next ()
  "Send the oldest waiting event, one at a time to keep their order."
  (when (and companion4j--queue (not companion4j--busy))
    (if (null companion4j--companion)
        (setq companion4j--queue nil)
      (setq companion4j--busy t)
      (companion4j--http "POST" "/events" (pop companion4j--queue)
                         (lambda (response)
                           (setq companion4j--busy nil)
                           (if (car response)
                               (companion4j--send-next)
                             (setq companion4j--queue nil)))))))

(defun companion4j--post (event)
  "Queue EVENT, an alist, for the companion followed, if one is."
  (when companion4j--companion
    (setq companion4j--queue (append companion4j--queue (list event)))
    (companion4j--send-next)))

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

;;;; Connection: the event stream

(defvar companion4j--stream nil "The network process following the event stream.")
(defvar companion4j--stream-connected nil "Non-nil once the stream answered 200.")
(defvar companion4j--reconnect-timer nil)
(defvar companion4j--clients nil "The connected CLIs: an alist of (ID . LABEL).")
(defvar companion4j--workspace nil "The companion's workspace roots.")
(defvar companion4j--started nil "Non-nil once this Emacs started a companion.")
(defvar companion4j--said-gone nil "The last `companion4j--gone' told the user.")

(defun companion4j--redisplay-mode-line ()
  "Show the new state in every mode line."
  (force-mode-line-update t))

(defun companion4j--connect ()
  "Follow the event stream of the companion serving this directory."
  (setq companion4j--reconnect-timer nil)
  (when (and companion4j-mode (not (process-live-p companion4j--stream)))
    (setq companion4j--companion nil)
    (let ((companion (companion4j--companion)))
      (unless (equal companion4j--gone companion4j--said-gone)
        (setq companion4j--said-gone companion4j--gone)
        (when companion4j--gone
          (message "companion4j: %s" companion4j--gone))
        (companion4j--redisplay-mode-line))
      (cond
       (companion (companion4j--open-stream companion))
       (t
        (when (and companion4j-autostart (not companion4j--started))
          (companion4j--start-companion))
        (companion4j--reconnect-later))))))

(defvar companion4j--retry-delay nil
  "Seconds between tries while the companion a discovery file names is gone.")

(defun companion4j--reconnect-later ()
  "Try the stream again after `companion4j-reconnect-delay' seconds.
While the port of a discovery file holds a server that fails the proof,
the delay doubles up to 30 s: a proof waits for its answer, and a server
that never answers must not keep Emacs waiting."
  (when (and companion4j-mode (null companion4j--reconnect-timer))
    (setq companion4j--retry-delay
          (if companion4j--gone
              (min 30 (* 2 (or companion4j--retry-delay companion4j-reconnect-delay)))
            companion4j-reconnect-delay))
    (setq companion4j--reconnect-timer
          (run-with-timer companion4j--retry-delay nil #'companion4j--connect))))

(defun companion4j--open-stream (companion)
  "Open the event stream of COMPANION."
  (let ((pending "") (headers-done nil) (event nil) (data nil))
    (condition-case nil
        (progn
          (setq companion4j--stream
                (make-network-process
                 :name "companion4j events" :buffer nil
                 :host (plist-get companion :host) :service (plist-get companion :port)
                 :coding 'binary :noquery t
                 :filter
                 (lambda (_process output)
                   (setq pending (concat pending output))
                   (unless headers-done
                     (when (string-match "\r?\n\r?\n" pending)
                       (let ((head (substring pending 0 (match-beginning 0))))
                         (setq pending (substring pending (match-end 0)) headers-done t)
                         (if (string-match "\\`HTTP/[0-9.]+ 200" head)
                             (companion4j--stream-opened companion)
                           (setq pending "")
                           (delete-process companion4j--stream)))))
                   (when headers-done
                     (while (string-match "\n" pending)
                       (let ((line (string-remove-suffix
                                    "\r" (decode-coding-string (substring pending 0 (match-beginning 0)) 'utf-8))))
                         (setq pending (substring pending (match-end 0)))
                         (cond
                          ((string-empty-p line)
                           (when data
                             (companion4j--dispatch (or event "message") (string-join (nreverse data) "\n")))
                           (setq event nil data nil))
                          ((string-prefix-p ":" line))
                          ((string-prefix-p "event:" line)
                           (setq event (string-trim-left (substring line 6) " ")))
                          ((string-prefix-p "data:" line)
                           (push (string-remove-prefix " " (substring line 5)) data)))))))
                 :sentinel
                 (lambda (process _event)
                   (unless (process-live-p process)
                     (when (eq process companion4j--stream)
                       (companion4j--stream-closed))))))
          (process-send-string
           companion4j--stream
           (concat "GET " (plist-get companion :prefix) "/events/stream HTTP/1.0\r\n"
                   (format "Host: %s:%s\r\n" (plist-get companion :host) (plist-get companion :port))
                   "Authorization: Bearer " (plist-get companion :token) "\r\n"
                   "Accept: text/event-stream\r\n\r\n")))
      (error
       (setq companion4j--stream nil companion4j--companion nil)
       (companion4j--reconnect-later)))))

(defun companion4j--stream-opened (companion)
  "The stream of COMPANION is up: read its state and the pending proposals."
  (setq companion4j--stream-connected t)
  (companion4j--forget-reports)
  (companion4j--http
   "GET" "/state" nil
   (lambda (response)
     (when (eql (car response) 200)
       (let ((state (companion4j--read-json (cdr response))))
         (setq companion4j--workspace (alist-get 'workspaceRoots state)
               companion4j--clients
               (mapcar (lambda (c) (cons (alist-get 'id c) (alist-get 'label c)))
                       (alist-get 'clients state)))
         (companion4j--redisplay-mode-line))))
   companion)
  (companion4j--http
   "GET" "/diffs" nil
   (lambda (response)
     (when (eql (car response) 200)
       (dolist (diff (companion4j--read-json (cdr response)))
         (companion4j--open-proposal diff))))
   companion)
  (companion4j--report-later)
  (companion4j--redisplay-mode-line))

(defun companion4j--stream-closed ()
  "The stream ended: forget the companion and follow it again shortly."
  (setq companion4j--stream nil
        companion4j--stream-connected nil
        companion4j--companion nil
        companion4j--clients nil)
  (companion4j--redisplay-mode-line)
  (companion4j--reconnect-later))

(defun companion4j--disconnect ()
  "Stop following the companion."
  (when companion4j--reconnect-timer
    (cancel-timer companion4j--reconnect-timer)
    (setq companion4j--reconnect-timer nil))
  (let ((stream companion4j--stream))
    (setq companion4j--stream nil companion4j--stream-connected nil companion4j--clients nil)
    (when (process-live-p stream) (delete-process stream)))
  (companion4j--redisplay-mode-line))

(defun companion4j--dispatch (event data)
  "Handle the stream's EVENT with its JSON DATA, outside the process filter."
  (run-at-time 0 nil #'companion4j--handle event data))

(defun companion4j--handle (event data)
  "Handle the stream's EVENT with its JSON DATA."
  (let ((value (ignore-errors (companion4j--read-json data))))
    (pcase event
      ("diffOpened" (companion4j--open-proposal value))
      ("diffClosed" (companion4j--proposal-closed-by-cli value))
      ("clientConnected"
       (setf (alist-get (alist-get 'id value) companion4j--clients nil nil #'equal)
             (alist-get 'label value))
       (companion4j--redisplay-mode-line))
      ("clientDisconnected"
       (setq companion4j--clients
             (cl-remove (alist-get 'id value) companion4j--clients :key #'car :test #'equal))
       (companion4j--redisplay-mode-line))
      ("openFile" (companion4j--open-file value)))))

(defun companion4j--start-companion ()
  "Run `companion4j serve' for `companion4j--cwd' as a child of Emacs.
It stops when Emacs exits, as an editor's own companion does; its
output goes to the buffer \" *companion4j serve*\"."
  (let* ((words (split-string-and-unquote companion4j-command))
         (program (executable-find (car words))))
    (if (null program)
        (message "companion4j: cannot start a companion: %s is not on the PATH; put it there or set `companion4j-command'" (car words))
      (setq companion4j--started t)
      (let ((default-directory (file-name-as-directory (companion4j--cwd))))
        (make-process :name "companion4j serve"
                      :buffer (get-buffer-create " *companion4j serve*")
                      :command (append (list program) (cdr words)
                                       (list "serve" "--workspace" (companion4j--cwd)))
                      :connection-type 'pipe
                      :noquery t))
      (message "companion4j: starting a companion for %s" (abbreviate-file-name (companion4j--cwd))))))

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

(defvar companion4j--proposals nil
  "The open proposals, oldest first.
Each is a plist (:id :file :rel :client :buffer :diff :change).")
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
                (call-process diff-command nil t nil "-u"
                              "--label" (concat "a/" rel) "--label" (concat "b/" rel) old new)
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
         (response (companion4j--http-sync
                    "POST" (format "/diffs/%s/%s" (plist-get proposal :id) (if accept "accept" "reject"))
                    (and accept
                         `((content . ,(with-current-buffer buffer
                                         (save-restriction
                                           (widen)
                                           (buffer-substring-no-properties (point-min) (point-max))))))))))
    (cond
     ((null (car response))
      (message "companion4j: %s; the proposal stays open, try again" (companion4j--reason response))
      nil)
     (t
      (companion4j--close-proposal proposal)
      (if (eql (car response) 204)
          (if accept
              (progn (companion4j--reload-later (plist-get proposal :file))
                     (message "companion4j: accepted; %s writes %s"
                              (plist-get proposal :client) (plist-get proposal :rel)))
            (message "companion4j: rejected the edit to %s" (plist-get proposal :rel)))
        (message "companion4j: %s" (companion4j--reason response)))
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
        (let ((response (companion4j--http-sync
                         "POST" (format "/diffs/%s/reject" (plist-get proposal :id)))))
          (run-at-time 0 nil #'companion4j--close-proposal proposal)
          (message "companion4j: %s"
                   (if (eql (car response) 204)
                       (format "rejected the edit to %s" (plist-get proposal :rel))
                     (companion4j--reason response))))))))

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

;;;; Mode line

(defun companion4j-mode-line ()
  "The companion's state for the mode line: \"C4J off\", \"C4J 2 CLIs\", ...."
  (if (not companion4j--stream-connected)
      (if companion4j--gone "C4J gone" "C4J off")
    (let ((clients (length companion4j--clients))
          (review (length companion4j--proposals)))
      (concat (format "C4J %d CLI%s" clients (if (= clients 1) "" "s"))
              (if (> review 0) (format " · %d to review" review) "")))))

(defvar companion4j-mode-line '(:eval (companion4j-mode-line))
  "A mode-line construct showing the companion's state.")
(put 'companion4j-mode-line 'risky-local-variable t)

;;;; Commands

;;;###autoload
(define-minor-mode companion4j-mode
  "Make Emacs the IDE of the CLIs connected to a running companion4j.
Reports the file in the selected window, point, the region and the
diagnostics of flymake (and flycheck when loaded), opens the edits a
CLI proposes for review and the places it shows.  See the Commentary
of the package: \\[finder-commentary] companion4j."
  :global t
  :group 'companion4j
  :lighter (" " companion4j-mode-line)
  (if companion4j-mode
      (progn
        (add-hook 'post-command-hook #'companion4j--on-command)
        (add-hook 'kill-buffer-hook #'companion4j--on-kill-buffer)
        (advice-add 'flymake--handle-report :after #'companion4j--diagnostics-changed)
        (with-eval-after-load 'flycheck
          (add-hook 'flycheck-after-syntax-check-hook #'companion4j--diagnostics-changed))
        (companion4j--connect))
    (remove-hook 'post-command-hook #'companion4j--on-command)
    (remove-hook 'kill-buffer-hook #'companion4j--on-kill-buffer)
    (advice-remove 'flymake--handle-report #'companion4j--diagnostics-changed)
    (remove-hook 'flycheck-after-syntax-check-hook #'companion4j--diagnostics-changed)
    (companion4j--disconnect)))

;;;###autoload
(defun companion4j-start ()
  "Start `companion4j serve' for `companion4j-directory' and connect to it."
  (interactive)
  (setq companion4j--companion nil)
  (if (companion4j--companion)
      (message "companion4j: a companion already serves %s at %s"
               (abbreviate-file-name (companion4j--cwd)) (companion4j--address companion4j--companion))
    (companion4j--start-companion)
    (unless companion4j-mode (companion4j-mode 1))))

(defconst companion4j--terminal-forms
  '(("QWEN_CODE_IDE_SERVER_PORT" . "\\`[0-9]\\{1,5\\}\\'")
    ("GEMINI_CLI_IDE_SERVER_PORT" . "\\`[0-9]\\{1,5\\}\\'")
    ("QWEN_CODE_IDE_WORKSPACE_PATH" . "\\`[^[:cntrl:]\177]*\\'")
    ("GEMINI_CLI_IDE_WORKSPACE_PATH" . "\\`[^[:cntrl:]\177]*\\'")
    ("GEMINI_CLI_IDE_AUTH_TOKEN" . "\\`[^[:cntrl:]\177]*\\'")
    ("REMOTE_CONTAINERS" . "\\`[^[:cntrl:]\177]*\\'"))
  "The variables a terminal takes from GET /editor/terminal, and the form of each.
They are the IDE's (Companion.terminalEnvironment); any other name, such as
NODE_OPTIONS, would run what it names.")

(defun companion4j--terminal-variables (text)
  "The IDE's variables in the JSON TEXT of GET /editor/terminal.
A cons (KEPT . DROPPED): KEPT are \"NAME=value\" strings, DROPPED the
sorted names not the IDE's or not of their form; nil when TEXT is not a
JSON object."
  (let ((all (ignore-errors (companion4j--read-json text))) kept dropped)
    (when (and (consp all) (cl-every #'consp all))
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
  (let* ((response (companion4j--http-sync "GET" "/terminal"))
         (variables (and (eql (car response) 200) (companion4j--terminal-variables (cdr response)))))
    (unless (eql (car response) 200)
      (user-error "companion4j: %s" (if (car response) (companion4j--reason response) (cdr response))))
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
  (let ((companion (companion4j--companion)))
    (if (null companion)
        (message "companion4j: %s" (companion4j--no-companion))
      (message "companion4j: %s, workspace %s, %s; CLIs: %s; proposals open: %s"
               (companion4j--address companion)
               (string-join (or companion4j--workspace (list (companion4j--cwd))) ":")
               (if companion4j--stream-connected "following its events" "not connected")
               (if companion4j--clients (string-join (mapcar #'cdr companion4j--clients) ", ") "none")
               (if companion4j--proposals
                   (string-join (mapcar (lambda (p) (plist-get p :rel)) companion4j--proposals) ", ")
                 "none")))))

(provide 'companion4j)
;;; companion4j.el ends here
