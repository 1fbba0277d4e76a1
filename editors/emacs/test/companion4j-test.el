;;; companion4j-test.el --- Unit tests of companion4j.el's review and context logic  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run headless:
;;   emacs --batch -Q -L editors/emacs -l editors/emacs/test/companion4j-test.el \
;;     -f ert-run-tests-batch-and-exit
;;
;; The package talks to `companion4j attach' through `companion4j--transport'.
;; Here a function stands in for that process: it records what the package
;; sends and answers requests from a table, in JSON lines through the
;; package's own reader, as attach would (docs/attach.md).

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'companion4j)

(defvar companion4j-test--sent nil "Messages the package sent, newest first.")
(defvar companion4j-test--answers nil
  "An alist of method to a function of the params giving the answer, or nil for none.")
(defvar companion4j-test--messages nil "What the package said, newest first.")

(defun companion4j-test--transport (message)
  "Stand in for attach: record MESSAGE and answer it when it is a request."
  (push message companion4j-test--sent)
  (let* ((id (alist-get 'id message))
         (answer (and id (cdr (assoc (alist-get 'method message) companion4j-test--answers)))))
    (when answer
      (let ((reply (funcall answer (alist-get 'params message))))
        (when reply
          (companion4j--output nil (encode-coding-string
                                    (concat (json-serialize `((id . ,id) ,@reply)) "\n") 'utf-8)))))))

(defun companion4j-test--receive (method params)
  "Have attach send the notification METHOD with PARAMS, and handle it."
  (companion4j--output nil (encode-coding-string
                            (concat (json-serialize `((method . ,method) (params . ,params))) "\n") 'utf-8))
  (companion4j--drain))

(defun companion4j-test--sent (method)
  "The params of the messages sent with METHOD, oldest first."
  (mapcar (lambda (m) (alist-get 'params m))
          (cl-remove-if-not (lambda (m) (equal (alist-get 'method m) method)) (reverse companion4j-test--sent))))

(defun companion4j-test--said (text)
  "Non-nil when the package said something containing TEXT."
  (cl-some (lambda (m) (string-search text m)) companion4j-test--messages))

(defmacro companion4j-test--with-attach (answers &rest body)
  "Run BODY with the fake attach answering requests by ANSWERS, in a fresh state."
  (declare (indent 1))
  `(let ((companion4j--transport #'companion4j-test--transport)
         (companion4j-test--answers ,answers)
         (companion4j-test--sent nil)
         (companion4j-test--messages nil)
         (companion4j--waiting (make-hash-table :test #'eql))
         (companion4j--chunks nil)
         (companion4j--inbox nil)
         (companion4j--attached nil)
         (companion4j--reason nil)
         (companion4j--said nil)
         (companion4j--clients nil)
         (companion4j--proposals nil)
         (companion4j--changes nil)
         (companion4j--saved-windows nil)
         (companion4j--start nil)
         (companion4j-directory companion4j-test--dir)
         (companion4j-mode t)
         (transient-mark-mode t))
     (cl-letf (((symbol-function 'message)
                (lambda (format &rest args)
                  (when format (push (apply #'format-message format args) companion4j-test--messages)))))
       (unwind-protect (progn ,@body)
         (dolist (p companion4j--proposals) (companion4j--close-proposal p))
         (dolist (c companion4j--changes) (companion4j--close-change c))
         (companion4j-test--settle)
         ;; The files' buffers go too: the next test writes its files anew.
         (dolist (b (buffer-list))
           (when (and (buffer-file-name b) (string-prefix-p companion4j-test--dir (buffer-file-name b)))
             (with-current-buffer b (set-buffer-modified-p nil))
             (kill-buffer b)))))))

(defun companion4j-test--settle ()
  "Run the timers due now, as the command loop would."
  (accept-process-output nil 0.05))

(defconst companion4j-test--dir
  (directory-file-name (make-temp-file "companion4j-test" t))
  "The workspace of these tests.")
(add-hook 'kill-emacs-hook (lambda () (delete-directory companion4j-test--dir t)))

(defun companion4j-test--file (relative content)
  "Write CONTENT to RELATIVE in the workspace; its absolute path."
  (let ((path (expand-file-name relative companion4j-test--dir)))
    (make-directory (file-name-directory path) t)
    (with-temp-file path (insert content))
    path))

(defun companion4j-test--diff (id path content)
  "A pending diff as the companion describes it."
  `((id . ,id) (filePath . ,path) (change . "modified") (originalContent . "")
    (newContent . ,content) (clientId . "c1") (clientName . "Qwen Code 0.24.4")))

(defun companion4j-test--attached (&rest pending)
  "Have attach say that a companion with two CLIs and the PENDING diffs proved itself."
  (companion4j-test--receive
   "attached"
   `((port . 41233) (started . :false)
     (state (workspaceRoots . ,(vector companion4j-test--dir))
            (clients . [((id . "c1") (label . "Qwen Code 0.24.4 (pts/1, pid 1)"))
                        ((id . "c2") (label . "Gemini CLI 0.61.0 (pts/2, pid 2)"))])
            (pendingDiffs . ,(vconcat pending))))))

;;;; Proposals

(ert-deftest companion4j-attached-shows-the-pending-proposals-and-drops-those-of-a-companion-gone ()
  (let ((a (companion4j-test--file "src/A.java" "class A {}\n")))
    (companion4j-test--with-attach nil
      (companion4j-test--attached (companion4j-test--diff "0123456789abcdef" a "class A { int x; }\n"))
      (should (equal (companion4j-mode-line) "C4J 2 CLIs · 1 to review"))
      (let ((buffer (get-buffer "*companion4j: src/A.java*")))
        (should buffer)
        (should (equal (with-current-buffer buffer (buffer-string)) "class A { int x; }\n")))
      (should (companion4j-test--said "Qwen Code 0.24.4 proposes an edit to src/A.java: C-c C-c accepts, C-c C-k rejects"))
      ;; Attached again, to a companion that does not know it: the proposal ended with the old one.
      (companion4j-test--attached)
      (should (null (companion4j-proposals)))
      (should (null (get-buffer "*companion4j: src/A.java*")))
      (should (companion4j-test--said "the proposal for src/A.java closed: the companion stopped"))
      (should (equal (companion4j-mode-line) "C4J 2 CLIs")))))

(ert-deftest companion4j-accepting-sends-the-proposal-with-the-users-edits ()
  (let ((a (companion4j-test--file "src/A.java" "class A {}\n")))
    (companion4j-test--with-attach `(("accept" . ,(lambda (_) '((result)))))
      (companion4j-test--attached)
      (companion4j-test--receive "diffOpened" (companion4j-test--diff "0123456789abcdef" a "class A { int x; }\n"))
      (with-current-buffer "*companion4j: src/A.java*"
        (goto-char (point-max))
        (insert "// mine\n")
        (companion4j-accept))
      (should (equal (companion4j-test--sent "accept")
                     '(((diff . "0123456789abcdef") (content . "class A { int x; }\n// mine\n")))))
      (should (null (companion4j-proposals)))
      (should (companion4j-test--said "accepted; Qwen Code 0.24.4 writes src/A.java"))
      (should (equal (with-temp-buffer (insert-file-contents a) (buffer-string)) "class A {}\n")))))

(ert-deftest companion4j-an-answer-that-may-not-have-arrived-keeps-the-proposal-open ()
  (let ((a (companion4j-test--file "src/A.java" "class A {}\n")))
    (companion4j-test--with-attach
        `(("accept" . ,(lambda (_) '((error (code . "detached") (message . "no companion is attached right now")))))
          ("reject" . ,(lambda (_) nil)))
      (companion4j-test--attached)
      (companion4j-test--receive "diffOpened" (companion4j-test--diff "0123456789abcdef" a "x\n"))
      (with-current-buffer "*companion4j: src/A.java*" (companion4j-accept))
      (should (companion4j-test--said "no companion is attached right now; the proposal stays open, try again"))
      (let ((companion4j-request-timeout 0.2))
        (with-current-buffer "*companion4j: src/A.java*" (companion4j-reject)))
      (should (companion4j-test--said "companion4j attach did not answer; the proposal stays open, try again"))
      (should (equal (mapcar (lambda (p) (plist-get p :file)) (companion4j-proposals)) (list a))))))

(ert-deftest companion4j-an-answer-to-a-proposal-that-ended-closes-it-with-the-reason ()
  (let ((a (companion4j-test--file "src/A.java" "class A {}\n")))
    (companion4j-test--with-attach
        `(("accept" . ,(lambda (_) '((error (code . "ended") (outcome . "replaced")
                                            (message . "diff 0123456789abcdef is no longer pending: it was replaced by a newer proposal"))))))
      (companion4j-test--attached)
      (companion4j-test--receive "diffOpened" (companion4j-test--diff "0123456789abcdef" a "x\n"))
      (with-current-buffer "*companion4j: src/A.java*" (companion4j-accept))
      (should (null (companion4j-proposals)))
      (should (companion4j-test--said "it was replaced by a newer proposal"))
      (should-not (companion4j-test--said "accepted;")))))

(ert-deftest companion4j-killing-the-proposal-rejects-it ()
  (let ((a (companion4j-test--file "src/A.java" "class A {}\n")))
    (companion4j-test--with-attach `(("reject" . ,(lambda (_) '((result)))))
      (companion4j-test--attached)
      (companion4j-test--receive "diffOpened" (companion4j-test--diff "0123456789abcdef" a "x\n"))
      (kill-buffer "*companion4j: src/A.java*")
      (companion4j-test--settle)
      (should (equal (companion4j-test--sent "reject") '(((diff . "0123456789abcdef")))))
      (should (null (companion4j-proposals)))
      (should (companion4j-test--said "rejected the edit to src/A.java")))))

(ert-deftest companion4j-a-proposal-the-cli-closes-closes-and-says-why ()
  (let ((a (companion4j-test--file "src/A.java" "class A {}\n")))
    (companion4j-test--with-attach nil
      (companion4j-test--attached)
      (companion4j-test--receive "diffOpened" (companion4j-test--diff "0123456789abcdef" a "x\n"))
      (companion4j-test--receive "diffClosed" `((id . "0123456789abcdef") (filePath . ,a) (outcome . "closedByClient")))
      (should (null (companion4j-proposals)))
      (should (null companion4j-test--sent))
      (should (companion4j-test--said "the proposal for src/A.java closed: withdrawn by the CLI"))
      (should-not (cl-some (lambda (b) (string-prefix-p "*companion4j" (buffer-name b))) (buffer-list))))))

(ert-deftest companion4j-malformed-ids-and-paths-are-refused ()
  (companion4j-test--with-attach nil
    (companion4j-test--attached)
    (companion4j-test--receive
     "diffOpened" (companion4j-test--diff "0123456789abcdef/reject HTTP/1.0\r\nX-Injected: 1\r\n\r\nGET /x" "/tmp/a.txt" "x"))
    (companion4j-test--receive "diffOpened" (companion4j-test--diff "0123456789abcdef" "/tmp/a\nb.txt" "x"))
    (companion4j-test--receive "diffOpened" (companion4j-test--diff "0123456789abcdef" "relative.txt" "x"))
    (companion4j-test--receive "openFile" '((path . "/tmp/a\rb.txt")))
    (should (companion4j-test--said "refused a proposal whose id is not sixteen hex digits"))
    (should (companion4j-test--said "refused a proposal whose file is not an absolute path without control characters"))
    (should (companion4j-test--said "refused to open a file that is not an absolute path without control characters"))
    (should (null (companion4j-proposals)))
    (should-not (get-buffer "a\rb.txt"))))

;;;; Terminals

(ert-deftest companion4j-a-terminal-takes-only-the-ides-variables-of-their-form ()
  (should (equal (companion4j--terminal-variables
                  '((NODE_OPTIONS . "--require /tmp/evil.js")
                    (QWEN_CODE_IDE_SERVER_PORT . "41233")
                    (GEMINI_CLI_IDE_SERVER_PORT . "4\n1")
                    (GEMINI_CLI_IDE_WORKSPACE_PATH . "/w")))
                 '(("QWEN_CODE_IDE_SERVER_PORT=41233" "GEMINI_CLI_IDE_WORKSPACE_PATH=/w")
                   "GEMINI_CLI_IDE_SERVER_PORT" "NODE_OPTIONS")))
  (should (null (companion4j--terminal-variables '("not" "an" "object")))))

(ert-deftest companion4j-run-says-why-when-no-companion-is-attached ()
  (companion4j-test--with-attach nil
    (companion4j-test--receive "detached" '((reason . "the companion on port 41233 is gone (another process holds its port)")))
    (should (equal (condition-case e (progn (companion4j-run "qwen") "started") (user-error (cadr e)))
                   "companion4j: the companion on port 41233 is gone (another process holds its port)"))
    (should (null (companion4j-test--sent "terminal")))
    (should (equal (companion4j-mode-line) "C4J off"))
    (should (companion4j-test--said "the companion on port 41233 is gone (another process holds its port)"))))

;;;; Starting a companion

(ert-deftest companion4j-start-asks-attach-and-says-when-one-already-serves ()
  (companion4j-test--with-attach
      `(("start" . ,(lambda (_) '((result (port . 41233) (started . :false))))))
    (companion4j-start)
    (should (equal (length (companion4j-test--sent "start")) 1))
    (should (companion4j-test--said (format "a companion already serves %s at http://127.0.0.1:41233/editor"
                                            (abbreviate-file-name companion4j-test--dir))))))

;;;; Context

(ert-deftest companion4j-the-file-point-and-region-reach-the-companion-as-they-change ()
  (let ((a (companion4j-test--file "src/A.java" "class A {\n  int x;\n}\n")))
    (companion4j-test--with-attach nil
      (companion4j-test--attached)
      (with-current-buffer (find-file-noselect a)
        (set-window-buffer (selected-window) (current-buffer))
        (goto-char (point-min))
        (forward-line 1)
        (forward-char 2)
        (set-window-point (selected-window) (point))
        (companion4j--report)
        (should (equal (companion4j-test--sent "event")
                       `(((type . "focus") (path . ,a))
                         ((type . "cursor") (path . ,a) (line . 2) (character . 3)))))
        (setq companion4j-test--sent nil)
        (companion4j--report)
        (should (null companion4j-test--sent))
        (push-mark (point) t t)
        (forward-char 3)
        (set-window-point (selected-window) (point))
        (companion4j--report)
        (should (equal (companion4j-test--sent "event")
                       `(((type . "cursor") (path . ,a) (line . 2) (character . 6))
                         ((type . "selection") (path . ,a) (text . "int")
                          (range (startLine . 2) (startCharacter . 3) (endLine . 2) (endCharacter . 6))))))
        (setq companion4j-test--sent nil)
        (deactivate-mark)
        (companion4j--report)
        (should (equal (companion4j-test--sent "event") `(((type . "selection") (path . ,a) (text . "")))))
        (setq companion4j-test--sent nil)
        (add-hook 'kill-buffer-hook #'companion4j--on-kill-buffer nil t)
        (kill-buffer)
        (should (equal (companion4j-test--sent "event") `(((type . "close") (path . ,a)))))))))

(ert-deftest companion4j-typing-sends-the-unsaved-text-once-it-rests-and-saving-says-it-is-saved ()
  (let ((a (companion4j-test--file "notes.txt" "alpha\ndélta\n")))
    (companion4j-test--with-attach nil
      (companion4j-test--attached)
      (with-current-buffer (find-file-noselect a)
        (add-hook 'after-save-hook #'companion4j--saved nil t)
        (add-hook 'after-change-functions #'companion4j--text-changed nil t)
        (setq companion4j-test--sent nil)
        (goto-char (point-min))
        (insert "typed ")
        (insert "more ")
        (should (null (companion4j-test--sent "event")))
        ;; The idle timer, as the command loop runs it once typing rests.
        (companion4j--report-typed)
        (should (equal (companion4j-test--sent "event")
                       `(((type . "dirty") (path . ,a) (dirty . t) (text . "typed more alpha\ndélta\n")))))
        (setq companion4j-test--sent nil)
        (save-buffer)
        (should (equal (companion4j-test--sent "event") `(((type . "dirty") (path . ,a) (dirty . :false)))))
        (setq companion4j-test--sent nil)
        (save-buffer)
        (should (null (companion4j-test--sent "event")))))))

(ert-deftest companion4j-a-companion-that-attaches-hears-of-every-unsaved-file ()
  (let ((a (companion4j-test--file "a.txt" "saved\n"))
        (b (companion4j-test--file "b.txt" (make-string (1+ (* 1024 1024)) ?x))))
    (companion4j-test--with-attach nil
      (with-current-buffer (find-file-noselect a) (insert "not "))
      (with-current-buffer (find-file-noselect b) (insert "y"))
      (companion4j-test--attached)
      (should (equal (sort (companion4j-test--sent "event")
                           (lambda (x y) (string< (alist-get 'path x) (alist-get 'path y))))
                     `(((type . "dirty") (path . ,a) (dirty . t) (text . "not saved\n"))
                       ;; Past the companion's bound: only the state, and the agent reads the disk.
                       ((type . "dirty") (path . ,b) (dirty . t))))))))

(ert-deftest companion4j-a-long-selection-is-cut-and-nothing-is-sent-while-detached ()
  (let ((a (companion4j-test--file "big.txt" (make-string 20000 ?x))))
    (companion4j-test--with-attach nil
      (with-current-buffer (find-file-noselect a)
        (set-window-buffer (selected-window) (current-buffer))
        (push-mark (point-min) t t)
        (goto-char (point-max))
        (set-window-point (selected-window) (point))
        (companion4j--report)
        (should (null companion4j-test--sent))
        (companion4j-test--attached)
        (companion4j--report)
        (let ((selection (car (last (companion4j-test--sent "event")))))
          (should (equal (alist-get 'type selection) "selection"))
          (should (= (length (alist-get 'text selection)) 16384)))
        (kill-buffer)))))

(ert-deftest companion4j-flymakes-diagnostics-reach-the-companion-with-their-range ()
  (let ((a (companion4j-test--file "src/B.java" "class B {\n  int unusedCounter;\n}\n")))
    (companion4j-test--with-attach nil
      (companion4j-test--attached)
      (with-current-buffer (find-file-noselect a)
        (setq-local flymake-diagnostic-functions
                    (list (lambda (report &rest _)
                            (goto-char (point-min))
                            (search-forward "unusedCounter")
                            (funcall report (list (flymake-make-diagnostic
                                                   (current-buffer) (match-beginning 0) (match-end 0)
                                                   :warning "unusedCounter is never read"))))))
        (flymake-mode 1)
        (flymake-start)
        (companion4j--report-diagnostics-now)
        (should (equal (companion4j-test--sent "event")
                       `(((type . "diagnostics") (path . ,a)
                          (diagnostics . [((range (startLine . 2) (startCharacter . 7) (endLine . 2) (endCharacter . 20))
                                           (severity . "warning") (message . "unusedCounter is never read")
                                           (source . ,(format "%s" (car flymake-diagnostic-functions))))])))))
        (setq companion4j-test--sent nil)
        (companion4j--report-diagnostics-now)
        (should (null companion4j-test--sent))
        (flymake-mode -1)
        (kill-buffer)))))

;;;; The line protocol

(ert-deftest companion4j-lines-split-anywhere-arrive-whole-and-in-order ()
  (companion4j-test--with-attach nil
    (let* ((bytes (encode-coding-string
                   (concat (json-serialize '((method . "error") (params (message . "première")))) "\n"
                           (json-serialize '((method . "error") (params (message . "zweite ✓")))) "\n")
                   'utf-8))
           (cut (1+ (string-search "\303" bytes))))
      ;; The cut falls inside the two bytes of "è".
      (companion4j--output nil (substring bytes 0 cut))
      (companion4j--output nil (substring bytes cut))
      (companion4j--drain)
      (should (equal (seq-take companion4j-test--messages 2)
                     '("companion4j: zweite ✓" "companion4j: première"))))))

(ert-deftest companion4j-an-answer-reaches-its-request-only ()
  (companion4j-test--with-attach nil
    (let (first second)
      (companion4j--request "state" nil (lambda (a) (setq first a)))
      (companion4j--request "state" nil (lambda (a) (setq second a)))
      (let ((ids (mapcar (lambda (m) (alist-get 'id m)) (reverse companion4j-test--sent))))
        (companion4j--output nil (concat (json-serialize `((id . ,(cadr ids)) (result (n . 2)))) "\n"))
        (should (null first))
        (should (equal second `((id . ,(cadr ids)) (result (n . 2)))))
        (should (null (alist-get 'params (car companion4j-test--sent))))))))

(ert-deftest companion4j-attach-runs-for-the-directory-and-its-end-is-said ()
  (let* ((script (companion4j-test--file "fake-attach" "#!/bin/sh\necho \"args: $*\" >&2\necho usage >&2\nexit 2\n"))
         (companion4j-command script)
         (companion4j-autostart t)
         (companion4j-reconnect-delay 60))
    (set-file-modes script #o700)
    (companion4j-test--with-attach nil
      (let ((companion4j--transport nil)
            (companion4j--process nil))
        (unwind-protect
            (progn
              (companion4j--launch)
              (with-timeout (10 (ert-fail "attach did not end"))
                (while companion4j--process (accept-process-output nil 0.05)))
              (should (equal companion4j--reason
                             (format "companion4j attach ended (exit 2): args: attach --workspace %s --start"
                                     companion4j-test--dir)))
              (should (equal (companion4j-mode-line) "C4J off"))
              (let ((companion4j-command "no-such-companion4j"))
                (companion4j--launch)
                (should (companion4j-test--said
                         "no-such-companion4j is not on the PATH; put it there or set `companion4j-command'"))))
          (let ((companion4j-mode nil)) (companion4j--quit)))))))

;;;; A change of several files

(defun companion4j-test--change (id &rest files)
  "A pending change as the companion describes it, of FILES (PATH OLD NEW) lists."
  `((id . ,id) (proposerName . "Companion4J rename to assist") (openedAt . 1)
    (files . ,(vconcat (mapcar (lambda (f) `((path . ,(nth 0 f)) (change . "modified")
                                             (originalContent . ,(nth 1 f)) (newContent . ,(nth 2 f))))
                               files)))))

(ert-deftest companion4j-a-change-shows-every-file-and-one-accept-answers-for-all ()
  (let ((a (companion4j-test--file "src/A.java" "class A { void helper() {} }\n"))
        (b (companion4j-test--file "src/B.java" "class B { void go() { new A().helper(); } }\n")))
    (companion4j-test--with-attach `(("acceptChange" . ,(lambda (_) '((result)))))
      (companion4j-test--attached)
      (companion4j-test--receive
       "changeOpened"
       (companion4j-test--change "00000000000000c1"
                                 (list a "class A { void helper() {} }\n" "class A { void assist() {} }\n")
                                 (list b "class B { void go() { new A().helper(); } }\n"
                                       "class B { void go() { new A().assist(); } }\n")))
      (should (equal (companion4j-mode-line) "C4J 2 CLIs · 1 to review"))
      (let ((buffer (get-buffer "*companion4j change: Companion4J rename to assist*")))
        (should buffer)
        (with-current-buffer buffer
          (should (derived-mode-p 'diff-mode))
          (should (string-search "  src/A.java (modified)\n  src/B.java (modified)\n" (buffer-string)))
          (should (string-search "+class B { void go() { new A().assist(); } }" (buffer-string)))
          (should (string-search "-class A { void helper() {} }" (buffer-string)))
          (should (eq (key-binding (kbd "C-c C-c")) #'companion4j-accept-change))
          (should (eq (key-binding (kbd "C-c C-k")) #'companion4j-reject-change))
          (companion4j-accept-change)))
      (should (equal (companion4j-test--sent "acceptChange") '(((change . "00000000000000c1")))))
      (should (null (companion4j-test--sent "rejectChange")))
      (should (null (get-buffer "*companion4j change: Companion4J rename to assist*")))
      (should (null (companion4j-changes)))
      (should (companion4j-test--said "accepted; the companion writes 2 files")))))

(ert-deftest companion4j-killing-a-change-rejects-it-and-a-change-closed-elsewhere-closes-saying-why ()
  (let ((a (companion4j-test--file "src/A.java" "class A {}\n")))
    (companion4j-test--with-attach `(("rejectChange" . ,(lambda (_) '((result)))))
      (companion4j-test--attached)
      (companion4j-test--receive "changeOpened" (companion4j-test--change "00000000000000c2" (list a "x\n" "y\n")))
      (kill-buffer (plist-get (car (companion4j-changes)) :buffer))
      (should (equal (companion4j-test--sent "rejectChange") '(((change . "00000000000000c2")))))
      (should (companion4j-test--said "rejected the change of 1 file"))
      (should (null (companion4j-changes)))

      (companion4j-test--receive "changeOpened" (companion4j-test--change "00000000000000c3" (list a "x\n" "y\n")))
      (companion4j-test--receive "changeClosed" '((id . "00000000000000c3") (outcome . "changedOnDisk")
                                                  (changedOnDisk . ["/elsewhere"])))
      (should (null (companion4j-changes)))
      (should (companion4j-test--said "the change of 1 file closed: files changed on disk since it was proposed; nothing was written"))
      (should (equal (length (companion4j-test--sent "rejectChange")) 1))

      ;; Attached to a companion that does not hold it: the change ended with the old one.
      (companion4j-test--receive "changeOpened" (companion4j-test--change "00000000000000c4" (list a "x\n" "y\n")))
      (companion4j-test--attached)
      (should (null (companion4j-changes)))
      (should (companion4j-test--said "the change of 1 file closed: the companion stopped"))
      (companion4j-test--receive "changeOpened" (companion4j-test--change "not-an-id" (list a "x\n" "y\n")))
      (companion4j-test--receive "changeOpened" (companion4j-test--change "00000000000000c5" (list "relative" "x\n" "y\n")))
      (should (null (companion4j-changes)))
      (should (companion4j-test--said "refused a change whose id is not sixteen hex digits"))
      (should (companion4j-test--said "refused a change whose files are not absolute paths with their text")))))

;;;; Questions about code

(defun companion4j-test--code-answer (id)
  "The params of the codeAnswer sent for query ID, or nil."
  (cl-find id (companion4j-test--sent "codeAnswer") :key (lambda (p) (alist-get 'id p)) :test #'equal))

(defun companion4j-test--ask (id &rest query)
  "Have the companion ask query ID with the alist QUERY; the answer sent."
  (companion4j-test--receive "codeQuery" `((id . ,id) ,@query))
  (companion4j-test--code-answer id))

(ert-deftest companion4j-definitions-and-references-are-answered-from-xref ()
  (let* ((main (companion4j-test--file "code/main.c" "int helper(void) { return 1; }\n\nint main(void) { return helper(); }\n"))
         (other (companion4j-test--file "code/other.c" "int helper(void);\nint twice(void) { return helper() * 2; }\n"))
         (default-directory (file-name-directory main)))
    (should (zerop (call-process "etags" nil nil nil "-o" "TAGS" "main.c" "other.c")))
    (companion4j-test--with-attach nil
      (companion4j-test--attached)
      (let* ((definition (companion4j-test--ask "00000000000000d1" '(kind . "definition") `(path . ,main)
                                                '(line . 3) '(column . 27)))
             (results (alist-get 'results definition)))
        (should (vectorp results))
        (should (cl-some (lambda (r) (and (equal (alist-get 'path r) main) (equal (alist-get 'line r) 1)
                                          (equal (alist-get 'text r) "int helper(void) { return 1; }")
                                          (eq (alist-get 'declaration r) t)))
                         results)))
      (let* ((references (companion4j-test--ask "00000000000000d2" '(kind . "references") `(path . ,other)
                                                '(line . 2) '(column . 27)))
             (places (mapcar (lambda (r) (list (file-name-nondirectory (alist-get 'path r))
                                               (alist-get 'line r) (alist-get 'column r)))
                             (alist-get 'results references))))
        (should (member '("main.c" 1 5) places))
        (should (member '("main.c" 3 25) places))
        (should (member '("other.c" 2 26) places)))
      (should (null (find-buffer-visiting other)))
      (should (null (cl-remove-if-not (lambda (b) (equal (buffer-name b) "TAGS")) (buffer-list)))))))

(ert-deftest companion4j-every-question-emacs-cannot-answer-is-refused-naming-why ()
  (let ((main (companion4j-test--file "bare/Main.java" "class Main {\n  void run() {}\n}\n")))
    (companion4j-test--with-attach nil
      (companion4j-test--attached)
      (dolist (kind '("documentSymbols" "workspaceSymbols" "callHierarchy" "typeHierarchy" "rename"))
        (should (equal (alist-get 'error (companion4j-test--ask (format "%016x" (length (companion4j-test--sent "codeAnswer")))
                                                                `(kind . ,kind) `(path . ,main)
                                                                '(line . 2) '(column . 8)))
                       (format "Emacs answers definition and references through xref; it has no %s to give" kind))))
      (should (equal (alist-get 'error (companion4j-test--ask "00000000000000f1" '(kind . "definition")
                                                              `(path . ,main) '(line . 2) '(column . 8)))
                     "Emacs has no language server (eglot) for Main.java and no tags table (TAGS) to find definitions in"))
      (should (equal (alist-get 'error (companion4j-test--ask "00000000000000f2" '(kind . "references")
                                                              '(path . "relative/Main.java") '(line . 2) '(column . 8)))
                     "A query names an absolute file and a 1-based line and column"))
      (companion4j-test--receive "codeQuery" `((id . "0123") (kind . "definition") (path . ,main)))
      (should (equal (length (companion4j-test--sent "codeAnswer")) 7)))))

(provide 'companion4j-test)
;;; companion4j-test.el ends here
