;;; companion4j.el --- Share Emacs's editing context with a running companion4j  -*- lexical-binding: t; -*-

;; Tells a running `companion4j serve' which file you edit, where point is and
;; what the region holds, so Qwen Code / Gemini CLI see it as IDE context.
;; Needs Emacs 27+; uses the built-in url library, so no curl and no token on
;; any command line.
;;
;;   (load "/path/to/companion4j.el")
;;   (companion4j-mode 1)
;;
;; It finds the companion for `default-directory' in the discovery files that
;; `companion4j serve' writes ($QWEN_HOME/ide/*.lock, else ~/.qwen/ide);
;; COMPANION4J_EDITOR_API and COMPANION4J_TOKEN override that.

;;; Code:

(require 'json)
(require 'url)
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

(provide 'companion4j)
;;; companion4j.el ends here
