;;; companion4j.el --- Share Emacs's editing context with a running companion4j  -*- lexical-binding: t; -*-

;; Tells a running `companion4j serve' which file you edit, where point is and
;; what the region holds, so Qwen Code / Gemini CLI see it as IDE context,
;; and lets you review the edits they propose. Needs Emacs 27+; uses the
;; built-in url library, so no curl and no token on any command line.
;;
;;   (load "/path/to/companion4j.el")
;;   (companion4j-mode 1)
;;
;; It finds the companion for `default-directory' in the discovery files that
;; `companion4j serve' writes ($QWEN_HOME/ide/*.lock, else ~/.qwen/ide);
;; COMPANION4J_EDITOR_API and COMPANION4J_TOKEN override that.
;;
;;   M-x companion4j-review   on a file: shows the CLI's pending proposal for
;;                            it in another window; edit it if you like
;;   M-x companion4j-accept   in that proposal: the CLI writes it, edits included
;;   M-x companion4j-reject   in that proposal: the CLI is told no
;;
;; Answers name the proposal you reviewed by its id: if the CLI replaced it
;; meanwhile, or left, the answer changes nothing and says so.

;;; Code:

(require 'json)
(require 'url)
(require 'url-http)
(require 'seq)

(defvar companion4j--queue nil "Events waiting to be sent, oldest first.")
(defvar companion4j--busy nil "Non-nil while a request is in flight.")
(defvar companion4j--timer nil)
(defvar companion4j--last-buffer nil)
(defvar companion4j--last-selection "")

(defun companion4j--find ()
  "Return (API . TOKEN) for the companion serving `default-directory', or nil."
  (let ((api (getenv "COMPANION4J_EDITOR_API"))
        (token (getenv "COMPANION4J_TOKEN")))
    (if (and api token (not (string-empty-p api)))
        (cons api token)
      (let* ((dir (expand-file-name "ide" (or (getenv "QWEN_HOME") (expand-file-name "~/.qwen"))))
             (cwd (directory-file-name (expand-file-name default-directory)))
             (locks (and (file-directory-p dir) (directory-files dir t "\\.lock\\'")))
             best best-time)
        (dolist (file locks)
          (let* ((lock (ignore-errors
                         (json-parse-string (with-temp-buffer (insert-file-contents file) (buffer-string))
                                            :object-type 'alist)))
                 (port (alist-get 'port lock))
                 (auth (alist-get 'authToken lock))
                 (time (float-time (file-attribute-modification-time (file-attributes file)))))
            (when (and port auth)
              (dolist (root (split-string (or (alist-get 'workspacePath lock) "") ":" t))
                (let ((root (directory-file-name root)))
                  (when (and (or (string= cwd root) (string-prefix-p (concat root "/") cwd))
                             (or (null best-time) (> time best-time)))
                    (setq best (cons (format "http://127.0.0.1:%s/editor" port) auth)
                          best-time time)))))))
        best))))

(defun companion4j--send-next ()
  "Send the oldest queued event; one at a time keeps them in order."
  (when (and companion4j--queue (not companion4j--busy))
    (let ((event (pop companion4j--queue))
          (companion (companion4j--find)))
      (if (null companion)
          (setq companion4j--queue nil)
        (setq companion4j--busy t)
        (let ((url-request-method "POST")
              (url-request-extra-headers
               `(("Authorization" . ,(concat "Bearer " (cdr companion)))
                 ("Content-Type" . "application/json")))
              (url-request-data (encode-coding-string (json-encode event) 'utf-8)))
          (condition-case nil
              (url-retrieve (concat (car companion) "/events")
                            (lambda (_status)
                              (kill-buffer (current-buffer))
                              (setq companion4j--busy nil)
                              (companion4j--send-next))
                            nil t t)
            (error (setq companion4j--busy nil))))))))

(defun companion4j--post (event)
  (setq companion4j--queue (append companion4j--queue (list event)))
  (companion4j--send-next))

(defun companion4j--file ()
  (and buffer-file-name (file-exists-p buffer-file-name) (expand-file-name buffer-file-name)))

(defun companion4j--report ()
  "Report the current buffer, point and region."
  (let ((path (companion4j--file)))
    (when path
      (unless (eq (current-buffer) companion4j--last-buffer)
        (setq companion4j--last-buffer (current-buffer))
        (companion4j--post `((type . "focus") (path . ,path))))
      (companion4j--post `((type . "cursor") (path . ,path)
                           (line . ,(line-number-at-pos))
                           (character . ,(1+ (- (point) (line-beginning-position))))))
      (let ((text (if (use-region-p)
                      (let ((s (buffer-substring-no-properties (region-beginning) (region-end))))
                        (substring s 0 (min (length s) 16384)))
                    "")))
        (unless (string= text companion4j--last-selection)
          (setq companion4j--last-selection text)
          (companion4j--post `((type . "selection") (path . ,path) (text . ,text))))))))

(defun companion4j--on-command ()
  ;; Commands come in bursts; report once Emacs has been idle a moment.
  (when companion4j--timer (cancel-timer companion4j--timer))
  (setq companion4j--timer (run-with-idle-timer 0.1 nil #'companion4j--report)))

(defun companion4j--on-kill ()
  (let ((path (companion4j--file)))
    (when path (companion4j--post `((type . "close") (path . ,path))))))

;;;###autoload
(define-minor-mode companion4j-mode
  "Share the current file, point and region with a running companion4j."
  :global t
  (if companion4j-mode
      (progn (add-hook 'post-command-hook #'companion4j--on-command)
             (add-hook 'kill-buffer-hook #'companion4j--on-kill))
    (remove-hook 'post-command-hook #'companion4j--on-command)
    (remove-hook 'kill-buffer-hook #'companion4j--on-kill)))

;;; Reviewing proposed edits

(defvar-local companion4j--diff-id nil "The id of the proposal in this buffer; answers name it.")
(defvar-local companion4j--source nil "The (API . TOKEN) of the companion it came from.")

(defun companion4j--request (companion method route &optional body)
  "Send METHOD ROUTE with BODY to COMPANION and wait: (STATUS . TEXT)."
  (let* ((url-request-method method)
         (url-request-extra-headers
          `(("Authorization" . ,(concat "Bearer " (cdr companion)))
            ("Content-Type" . "application/json")))
         (url-request-data (and body (encode-coding-string (json-encode body) 'utf-8)))
         (buffer (url-retrieve-synchronously (concat (car companion) route) t t 5)))
    (if (null buffer)
        (cons nil "")
      (with-current-buffer buffer
        (prog1 (cons url-http-response-status
                     (progn (goto-char (point-min))
                            (re-search-forward "\r?\n\r?\n" nil 'move)
                            (decode-coding-string (buffer-substring-no-properties (point) (point-max)) 'utf-8)))
          (kill-buffer))))))

(defun companion4j--reason (response)
  "The companion's reason for refusing, e.g. that the proposal was replaced."
  (or (ignore-errors (alist-get 'error (json-parse-string (cdr response) :object-type 'alist)))
      (format "the companion answered %s" (car response))))

(defun companion4j-review ()
  "Show the CLI's pending proposal for this file in another window."
  (interactive)
  (let ((path (companion4j--file))
        (companion (companion4j--find))
        (mode major-mode))
    (unless path (user-error "companion4j: this buffer is not a file on disk"))
    (unless companion (user-error "companion4j: no companion serves %s" default-directory))
    (let* ((response (companion4j--request companion "GET" "/diffs"))
           (diffs (if (eql (car response) 200)
                      (json-parse-string (cdr response) :object-type 'alist :array-type 'list)
                    (user-error "companion4j: %s" (companion4j--reason response))))
           (diff (seq-find (lambda (d) (string= (alist-get 'filePath d) path)) diffs)))
      (unless diff (user-error "companion4j: no proposed edit is pending for %s" path))
      (let ((buffer (generate-new-buffer (format "*companion4j %s %s*" (file-name-nondirectory path)
                                                 (alist-get 'id diff)))))
        (with-current-buffer buffer
          (insert (alist-get 'newContent diff))
          (goto-char (point-min))
          (ignore-errors (funcall mode))
          ;; After the major mode, which clears buffer-local variables.
          (setq companion4j--diff-id (alist-get 'id diff)
                companion4j--source companion))
        (switch-to-buffer-other-window buffer)
        (message "companion4j: proposal %s: M-x companion4j-accept or companion4j-reject (M-x ediff-buffers compares)"
                 (alist-get 'id diff))))))

(defun companion4j--answer (accept)
  (unless companion4j--diff-id
    (user-error "companion4j: answer in the buffer that `companion4j-review' opened"))
  (let ((response (companion4j--request
                   companion4j--source "POST"
                   (format "/diffs/%s/%s" companion4j--diff-id (if accept "accept" "reject"))
                   (and accept `((content . ,(buffer-substring-no-properties (point-min) (point-max))))))))
    (if (eql (car response) 204)
        (progn (kill-buffer)
               (message "companion4j: %s" (if accept "accepted; the CLI writes the file" "rejected")))
      ;; 409: answered, replaced or closed meanwhile; 410: its CLI left. Nothing was written.
      (message "companion4j: %s" (companion4j--reason response)))))

(defun companion4j-accept ()
  "Accept the proposal in this buffer, as edited: the CLI writes it."
  (interactive)
  (companion4j--answer t))

(defun companion4j-reject ()
  "Reject the proposal in this buffer."
  (interactive)
  (companion4j--answer nil))

(provide 'companion4j)
;;; companion4j.el ends here
