" What the companion hears from Vim: the file, the cursor and the selection,
" in characters, only while a companion is attached.

function! Test_nothingGoesOutBeforeACompanionIsAttachedAndWhereTheUserIsGoesOutOnAttach() abort
  let dir = Workspace({'src/Main.java': ['class Main {}', 'int ünïcode = 1;']})
  call Attach()
  edit src/Main.java
  call companion4j#focus(bufnr('%'))
  call companion4j#cursor_moved()
  call assert_equal([], g:sent)

  call cursor(2, stridx(getline(2), '= 1') + 1)
  call Receive({'method': 'attached', 'params': {'port': 41233, 'started': v:false,
        \ 'state': {'workspaceRoots': [dir], 'clients': [], 'pendingDiffs': []}}})
  call assert_equal([{'type': 'focus', 'path': dir . '/src/Main.java'}], Events('focus'))
  " The cursor in characters: ü and ï are two bytes each but one character.
  call assert_equal([{'type': 'cursor', 'path': dir . '/src/Main.java', 'line': 2, 'character': 13}], Events('cursor'))
  call assert_equal([{'type': 'selection', 'path': dir . '/src/Main.java', 'text': ''}], Events('selection'))
endfunction

function! Test_theCursorGoesOutOnceItRestsAndCloseNamesTheFile() abort
  let dir = Workspace({'a.txt': ['one', 'two', 'three']})
  edit a.txt
  call Attach({})
  let g:sent = []
  for line in [1, 2, 3]
    call cursor(line, 2)
    call companion4j#cursor_moved()
  endfor
  call WaitFor('len(Events("cursor")) > 0')
  call assert_equal([{'type': 'cursor', 'path': dir . '/a.txt', 'line': 3, 'character': 2}], Events('cursor'))
  call companion4j#close(bufnr('%'))
  call assert_equal([{'type': 'close', 'path': dir . '/a.txt'}], Events('close'))
endfunction

function! Test_theVisualSelectionGoesOutInCharactersAndLeavingItClearsIt() abort
  let dir = Workspace({'b.txt': ['héllo wörld', 'second line', 'third']})
  edit b.txt
  call Attach({})
  let g:sent = []
  " A key that reports while Visual mode lasts, as the debounced CursorMoved does.
  xnoremap <F2> <Cmd>call Plugin('ReportCursor')()<CR>
  execute "normal! gg0w"
  execute "normal ve\<F2>"
  call assert_equal({'type': 'selection', 'path': dir . '/b.txt', 'text': 'wörld',
        \ 'range': {'startLine': 1, 'startCharacter': 7, 'endLine': 1, 'endCharacter': 12}}, Events('selection')[-1])
  execute "normal! \<Esc>"
  execute "normal ggVj\<F2>"
  call assert_equal({'type': 'selection', 'path': dir . '/b.txt', 'text': "héllo wörld\nsecond line",
        \ 'range': {'startLine': 1, 'startCharacter': 1, 'endLine': 2, 'endCharacter': 12}}, Events('selection')[-1])
  execute "normal! \<Esc>"
  execute "normal 2G0l\<C-v>jl\<F2>"
  call assert_equal({'type': 'selection', 'path': dir . '/b.txt', 'text': "ec\nhi",
        \ 'range': {'startLine': 2, 'startCharacter': 2, 'endLine': 3, 'endCharacter': 4}}, Events('selection')[-1])
  execute "normal! \<Esc>"
  call Plugin('ReportCursor')()
  call assert_equal({'type': 'selection', 'path': dir . '/b.txt', 'text': ''}, Events('selection')[-1])
  " An unchanged selection is not sent again.
  let sent = len(Events('selection'))
  call Plugin('ReportCursor')()
  call assert_equal(sent, len(Events('selection')))
endfunction

function! Test_aSelectionIsCutAt16KiB() abort
  call Workspace({'c.txt': [repeat('é', 10000)]})
  edit c.txt
  call Attach({})
  xnoremap <F2> <Cmd>call Plugin('ReportCursor')()<CR>
  execute "normal 0v$\<F2>"
  let text = Events('selection')[-1].text
  call assert_inrange(16000, 16384, len(text))
  call assert_equal(text, repeat('é', strchars(text)), 'cut between characters')
endfunction

function! Test_buffersThatAreNoFilesOnDiskAreNotReported() abort
  call Workspace({'d.txt': ['x']})
  call Attach({})
  let g:sent = []
  enew
  setlocal buftype=nofile
  file scratch
  call companion4j#focus(bufnr('%'))
  new not-yet-written.txt
  call companion4j#focus(bufnr('%'))
  call Plugin('ReportCursor')()
  call assert_equal([], g:sent)
endfunction

function! Test_afterTheCompanionWentAwayNothingGoesOutUntilOneIsAttachedAgain() abort
  let dir = Workspace({'e.txt': ['x']})
  edit e.txt
  call Attach({})
  call Receive({'method': 'detached', 'params': {'reason': 'the companion on port 41233 went away'}})
  let g:sent = []
  call companion4j#focus(bufnr('%'))
  call companion4j#cursor_moved()
  call companion4j#close(bufnr('%'))
  call assert_equal([], g:sent)
  call Attach({})
  call assert_equal([{'type': 'focus', 'path': dir . '/e.txt'}], Events('focus'))
endfunction

function! Test_aBlockSelectionSpansScreenColumnsNotBytes() abort
  let dir = Workspace({'f.txt': ['héllo wörld', 'second line', 'ab']})
  edit f.txt
  call Attach({})
  xnoremap <F2> <Cmd>call Plugin('ReportCursor')()<CR>
  " From é (two bytes) down to c: the screen columns 2 to 3 of each line.
  execute "normal gg0l\<C-v>jl\<F2>"
  call assert_equal({'type': 'selection', 'path': dir . '/f.txt', 'text': "él\nec",
        \ 'range': {'startLine': 1, 'startCharacter': 2, 'endLine': 2, 'endCharacter': 4}}, Events('selection')[-1])
  execute "normal! \<Esc>"
  " Up from a short line: a line that ends before the block gives what it has.
  execute "normal 3G0l\<C-v>2kl\<F2>"
  call assert_equal({'type': 'selection', 'path': dir . '/f.txt', 'text': "él\nec\nb",
        \ 'range': {'startLine': 1, 'startCharacter': 2, 'endLine': 3, 'endCharacter': 3}}, Events('selection')[-1])
endfunction

function! Test_typingSendsTheUnsavedTextOnceItRestsAndSavingSaysTheFileIsSaved() abort
  let dir = Workspace({'g.txt': ['alpha', 'délta']})
  edit g.txt
  call Attach({})
  let g:sent = []
  call setline(1, 'typed')
  call companion4j#text_changed(bufnr('%'))
  call setline(1, 'typed more')
  call companion4j#text_changed(bufnr('%'))
  call assert_equal([], Events('dirty'), 'nothing while typing')
  call WaitFor('len(Events("dirty")) > 0')
  call assert_equal([{'type': 'dirty', 'path': dir . '/g.txt', 'dirty': v:true, 'text': "typed more\ndélta\n"}],
        \ Events('dirty'), 'one event, the newest text')
  " The plugin's BufWritePost and BufReadPost autocmds, which these tests do not load.
  silent write
  call companion4j#saved(bufnr('%'))
  call assert_equal({'type': 'dirty', 'path': dir . '/g.txt', 'dirty': v:false}, Events('dirty')[-1], 'saved')
  " A file never said to be dirty is not said to be saved.
  let sent = len(Events('dirty'))
  silent write
  call companion4j#saved(bufnr('%'))
  silent edit!
  call companion4j#saved(bufnr('%'))
  call assert_equal(sent, len(Events('dirty')))
  " Changed again, then read back from disk.
  call setline(1, 'again')
  call companion4j#text_changed(bufnr('%'))
  call WaitFor('Events("dirty")[-1].dirty')
  silent edit!
  call companion4j#saved(bufnr('%'))
  call assert_equal({'type': 'dirty', 'path': dir . '/g.txt', 'dirty': v:false}, Events('dirty')[-1], 'reverted')
endfunction

function! Test_aCompanionThatAttachesHearsOfEveryUnsavedFile() abort
  let dir = Workspace({'h.txt': ['saved'], 'i.txt': ['also saved'], 'big.txt': [repeat('x', 1024 * 1024)]})
  set hidden
  edit big.txt
  normal! x
  edit i.txt
  call setline(1, 'also not saved')
  edit h.txt
  call Attach()
  call Receive({'method': 'attached', 'params': {'port': 41233, 'started': v:false,
        \ 'state': {'workspaceRoots': [dir], 'clients': [], 'pendingDiffs': []}}})
  call assert_equal([
        \ {'type': 'dirty', 'path': dir . '/big.txt', 'dirty': v:true, 'text': repeat('x', 1024 * 1024 - 1) . "\n"},
        \ {'type': 'dirty', 'path': dir . '/i.txt', 'dirty': v:true, 'text': "also not saved\n"}],
        \ sort(Events('dirty'), {a, b -> a.path < b.path ? -1 : 1}))
  " One character more than the companion takes: only the state, and the agent reads the disk.
  buffer big.txt
  normal! yyp
  call Plugin('ReportDirty')(bufnr('%'))
  call assert_equal({'type': 'dirty', 'path': dir . '/big.txt', 'dirty': v:true}, Events('dirty')[-1])
  set nohidden
endfunction
