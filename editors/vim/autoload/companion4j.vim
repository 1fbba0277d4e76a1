" companion4j.vim: Vim as the IDE of Qwen Code and Gemini CLI. It reaches its
" companion through one `companion4j attach` process (autoload/companion4j/attach.vim);
" this file is the editor's side: context, the review of proposals, commands.
" Commands and options: see plugin/companion4j.vim and :help companion4j.
scriptencoding utf-8

let s:save_cpo = &cpoptions
set cpoptions&vim

" Whether a companion is attached, its port, whether attach started it, and
" the workspace roots it serves.
let s:attached = 0
let s:port = 0
let s:started = 0
let s:roots = []
" Whether the attached companion went away (rather than none ever attaching).
let s:gone = 0
" Why no companion is attached, as attach said it, or ''.
let s:reason = ''
" The directory attach was started for.
let s:dir = ''
" Whether a companion was asked for (autostart or :Companion4jStart) and has not come yet.
let s:starting = 0
" The connected CLIs, id -> label.
let s:clients = {}
" The proposals open for review, id -> {id, filePath, rel, buf, clientName, answering, from}.
let s:proposals = {}
let s:enabled = 0
let s:leaving = 0
let s:opening = 0
let s:cursor_timer = -1
let s:text_timer = -1
" The buffer whose unsaved text waits for the typing to rest, else -1.
let s:typed_in = -1
" The companion refuses an unsaved text longer than this (in characters; a
" byte is at most one): past it only the state goes, and the agent reads the disk.
let s:MAX_UNSAVED_BYTES = 1024 * 1024
let s:last_selection = ''
let s:deferred = []
let s:defer_timer = -1

let s:WHY = {
      \ 'accepted': 'accepted',
      \ 'rejected': 'rejected',
      \ 'closedByClient': 'withdrawn by the CLI',
      \ 'replaced': 'replaced by a newer proposal',
      \ 'clientGone': 'its CLI left',
      \ 'stopped': 'the companion stopped',
      \ }

function! s:Option(name, default) abort
  return get(g:, 'companion4j_' . a:name, a:default)
endfunction

" ---- messages --------------------------------------------------------------

" One line that fits the screen, so no message ever asks to press ENTER.
function! s:Fit(text) abort
  let room = max([20, &columns - 14])
  if strdisplaywidth(a:text) <= room
    return a:text
  endif
  let text = a:text
  while strdisplaywidth(text) > room - 1
    let text = strcharpart(text, 0, strchars(text) - max([1, (strdisplaywidth(text) - room) / 2]))
  endwhile
  return text . '…'
endfunction

function! s:Say(text) abort
  redraw
  echomsg s:Fit('companion4j: ' . a:text)
endfunction

function! s:Warn(text) abort
  redraw
  echohl WarningMsg
  echomsg s:Fit('companion4j: ' . a:text)
  echohl None
endfunction

" Why no companion is attached, for messages.
function! s:NoCompanion() abort
  return empty(s:reason) ? 'no companion serves ' . fnamemodify(getcwd(), ':~') : s:reason
endfunction

" ---- attaching ---------------------------------------------------------------

function! companion4j#enable() abort
  if s:enabled
    return
  endif
  let s:enabled = 1
  call s:Launch(s:Option('autostart', 0))
endfunction

" Starts `companion4j attach` for the current directory; with start, it runs
" a companion itself when none serves the directory, until Vim exits.
function! s:Launch(start) abort
  let command = s:Option('command', 'companion4j')
  let command = type(command) == v:t_list ? copy(command) : split(command)
  let s:dir = getcwd()
  let why = empty(command) ? 'cannot run an empty command'
        \ : companion4j#attach#start(command + ['attach', '--workspace', s:dir] + (a:start ? ['--start'] : []),
        \ function('s:Handle'))
  if !empty(why)
    let s:reason = why . '; put companion4j on PATH or set g:companion4j_command'
    return s:Warn(s:reason)
  endif
  let s:starting = a:start
endfunction

" A notification from attach.
function! s:Handle(method, params) abort
  try
    if a:method ==# 'attached'
      call s:Attached(a:params)
    elseif a:method ==# 'detached'
      call s:Detached(a:params)
    elseif a:method ==# 'clientConnected'
      let s:clients[a:params.id] = a:params.label
      redrawstatus!
    elseif a:method ==# 'clientDisconnected'
      silent! call remove(s:clients, a:params.id)
      redrawstatus!
    elseif a:method ==# 'diffOpened'
      call s:WhenNormal(function('s:Open', [a:params]))
    elseif a:method ==# 'diffClosed'
      call s:WhenNormal(function('s:ClosedByCompanion', [a:params]))
    elseif a:method ==# 'openFile'
      call s:WhenNormal(function('s:OpenFile', [a:params]))
    elseif a:method ==# 'codeQuery'
      call s:RefuseCodeQuery(a:params)
    elseif a:method ==# 'error' && (s:attached || get(a:params, 'method', '') !=# 'event')
      " An event refused while the companion goes away says nothing the detach does not.
      call s:Warn(get(a:params, 'message', 'companion4j attach reported an error'))
    endif
  catch
    call s:Warn(a:method . ': ' . v:exception)
  endtry
endfunction

" A companion proved itself (again): rebuild the view from its state.
function! s:Attached(params) abort
  let state = get(a:params, 'state', {})
  let asked = s:starting
  let [s:attached, s:gone, s:reason, s:starting] = [1, 0, '', 0]
  let s:port = get(a:params, 'port', 0)
  let s:started = get(a:params, 'started', v:false) is v:true
  let s:roots = get(state, 'workspaceRoots', [])
  let s:clients = {}
  for client in get(state, 'clients', [])
    let s:clients[client.id] = client.label
  endfor
  let pending = {}
  for diff in get(state, 'pendingDiffs', [])
    if type(diff) == v:t_dict && s:IsDiffId(get(diff, 'id'))
      let pending[diff.id] = diff
    else
      call s:Warn('refused a proposal whose id is not sixteen hex digits')
    endif
  endfor
  for id in keys(s:proposals)
    if !has_key(pending, id) && !s:proposals[id].answering
      call s:WhenNormal(function('s:Finish', [id, 'the proposal for ' . s:proposals[id].rel . ' is no longer pending']))
    endif
  endfor
  for diff in values(pending)
    call s:WhenNormal(function('s:Open', [diff]))
  endfor
  redrawstatus!
  if s:started && asked
    call s:Say('started a companion for ' . fnamemodify(s:dir, ':~') . ' on port ' . s:port)
  endif
  " Where the user is, for a companion that may never have heard of this Vim.
  let s:last_selection = ''
  call companion4j#focus(bufnr('%'))
  for info in getbufinfo({'bufmodified': 1})
    call s:ReportDirty(info.bufnr)
  endfor
  call s:ReportCursor()
endfunction

" No companion serves the directory (now): say why once, when the one
" followed went away, one was asked for or attach itself ended; otherwise
" (none at the start) stay quiet.
function! s:Detached(params) abort
  let reason = get(a:params, 'reason', '')
  let reason = type(reason) == v:t_string && !empty(reason) ? reason : 'no companion serves ' . fnamemodify(getcwd(), ':~')
  let say = (s:attached || s:starting || !companion4j#attach#running()) && reason !=# s:reason
  let s:gone = s:gone || s:attached
  let [s:attached, s:clients, s:reason] = [0, {}, reason]
  call timer_stop(s:cursor_timer)
  call timer_stop(s:text_timer)
  let s:typed_in = -1
  redrawstatus!
  if say
    call s:Warn(reason)
  endif
endfunction

" Windows change only in Normal mode (or in a terminal, or in Ex mode, which
" has no Normal mode to wait for): otherwise wait, so nothing lands in the
" middle of typing.
function! s:WhenNormal(Fn) abort
  if s:MayChangeWindows()
    call a:Fn()
    return
  endif
  call add(s:deferred, a:Fn)
  if s:defer_timer == -1
    let s:defer_timer = timer_start(250, function('s:RunDeferred'), {'repeat': -1})
  endif
endfunction

function! s:MayChangeWindows() abort
  return mode() ==# 'n' || mode() ==# 't' || mode(1) ==# 'ce'
endfunction

function! s:RunDeferred(timer) abort
  if !s:MayChangeWindows()
    return
  endif
  call timer_stop(a:timer)
  let s:defer_timer = -1
  let deferred = s:deferred
  let s:deferred = []
  for Fn in deferred
    call Fn()
  endfor
endfunction

" ---- events to the companion -----------------------------------------------

" Attach hands events on in the order they come; none goes out while no
" companion is attached.
function! s:Post(event) abort
  if s:attached
    call companion4j#attach#notify('event', a:event)
  endif
endfunction

" The file behind a buffer the companion hears about, else ''. Proposals and
" the windows of a review are left out.
function! s:FileOf(buf) abort
  if s:opening || exists('t:companion4j_review')
    return ''
  endif
  let name = bufname(a:buf)
  if empty(name) || !empty(getbufvar(a:buf, '&buftype')) || !filereadable(name)
    return ''
  endif
  return fnamemodify(name, ':p')
endfunction

function! companion4j#focus(buf) abort
  let path = s:FileOf(a:buf)
  if !empty(path)
    call s:Post({'type': 'focus', 'path': path})
  endif
endfunction

function! companion4j#close(buf) abort
  let name = bufname(a:buf)
  if empty(name) || !empty(getbufvar(a:buf, '&buftype')) || !filereadable(name)
    return
  endif
  call s:Post({'type': 'close', 'path': fnamemodify(name, ':p')})
endfunction

function! companion4j#cursor_moved() abort
  if !s:attached
    return
  endif
  " Cursor moves come in bursts; report where the cursor comes to rest.
  call timer_stop(s:cursor_timer)
  let s:cursor_timer = timer_start(100, function('s:ReportCursor'))
endfunction

" The text of buf changed: whether it is unsaved, and its text, go out once
" the typing rests; a change in another buffer sends the waiting one at once.
function! companion4j#text_changed(buf) abort
  if !s:attached
    return
  endif
  if s:typed_in != -1 && s:typed_in != a:buf
    call s:ReportDirty(s:typed_in)
  endif
  let s:typed_in = a:buf
  call timer_stop(s:text_timer)
  let s:text_timer = timer_start(100, function('s:ReportTyped'))
endfunction

function! s:ReportTyped(...) abort
  let buf = s:typed_in
  let s:typed_in = -1
  if bufexists(buf)
    call s:ReportDirty(buf)
  endif
endfunction

" buf was written, or read again from disk (:edit!): the disk holds the file.
function! companion4j#saved(buf) abort
  if getbufvar(a:buf, 'companion4j_dirty', 0)
    call s:ReportDirty(a:buf)
  endif
endfunction

" Whether buf has unsaved changes and, while it has, their whole text: the
" companion's chat agent reads it instead of the disk. A buffer never said
" to be dirty is not said to be saved.
function! s:ReportDirty(buf) abort
  let path = s:FileOf(a:buf)
  let dirty = getbufvar(a:buf, '&modified')
  if empty(path) || (!dirty && !getbufvar(a:buf, 'companion4j_dirty', 0))
    return
  endif
  call setbufvar(a:buf, 'companion4j_dirty', dirty)
  let event = {'type': 'dirty', 'path': path, 'dirty': dirty ? v:true : v:false}
  if dirty
    let eol = getbufvar(a:buf, '&eol') || (getbufvar(a:buf, '&fixeol') && !getbufvar(a:buf, '&binary'))
    let text = join(getbufline(a:buf, 1, '$'), "\n") . (eol ? "\n" : '')
    if len(text) <= s:MAX_UNSAVED_BYTES
      let event.text = text
    endif
  endif
  call s:Post(event)
endfunction

" Attach serves the directory it was started in: another one outside the
" companion's workspace needs an attach of its own.
function! companion4j#dir_changed() abort
  let cwd = getcwd()
  if !s:enabled || s:leaving || cwd ==# s:dir || (s:attached && s:Serves(cwd))
    return
  endif
  let [s:attached, s:gone, s:clients, s:reason] = [0, 0, {}, '']
  redrawstatus!
  call s:Launch(s:Option('autostart', 0))
endfunction

function! s:Serves(dir) abort
  for root in s:roots
    let root = substitute(root, '/\+$', '', '')
    if !empty(root) && (a:dir ==# root || stridx(a:dir, root . '/') == 0)
      return 1
    endif
  endfor
  return 0
endfunction

" The 1-based character at byte column col of text.
function! s:Character(text, col) abort
  return strchars(strpart(a:text, 0, a:col - 1)) + 1
endfunction

function! s:ReportCursor(...) abort
  let path = s:FileOf(bufnr('%'))
  if empty(path)
    return
  endif
  call s:Post({'type': 'cursor', 'path': path, 'line': line('.'),
        \ 'character': s:Character(getline('.'), col('.'))})
  let selection = s:Selection()
  let key = string(selection)
  if key !=# s:last_selection
    let s:last_selection = key
    call s:Post(extend({'type': 'selection', 'path': path}, empty(selection) ? {'text': ''} : selection))
  endif
endfunction

" The visual selection: {text, range} (1-based, the end just after the last
" character), or {} outside Visual mode.
function! s:Selection() abort
  let mode = mode()
  if mode !=# 'v' && mode !=# 'V' && mode !=# "\<C-v>"
    return {}
  endif
  let [a, b] = [getpos('v'), getpos('.')]
  if a[1] > b[1] || (a[1] == b[1] && a[2] > b[2])
    let [a, b] = [b, a]
  endif
  let lines = getline(a[1], b[1])
  let first = lines[0]
  let last = lines[-1]
  if mode ==# 'v'
    let end = min([b[2] - 1 + len(matchstr(last, '.', b[2] - 1)), len(last)])
    let lines[-1] = strpart(last, 0, end)
    let lines[0] = strpart(lines[0], a[2] - 1)
    let range = [a[1], s:Character(first, a[2]), b[1], strchars(strpart(last, 0, end)) + 1]
  elseif mode ==# 'V'
    let range = [a[1], 1, b[1], strchars(last) + 1]
  else
    " A block spans screen columns, not bytes: each line's characters within them.
    let [left, right] = [min([s:Cell(a, 0), s:Cell(b, 0)]), max([s:Cell(a, 1), s:Cell(b, 1)])]
    let cut = map(lines, 's:Within(v:val, left, right)')
    let lines = map(copy(cut), 'v:val[1]')
    let range = [a[1], cut[0][0] + 1, b[1], cut[-1][0] + strchars(cut[-1][1]) + 1]
  endif
  let text = strcharpart(join(lines, "\n"), 0, 16384)
  while len(text) > 16384
    let text = strcharpart(text, 0, strchars(text) - max([1, (len(text) - 16384) / 4]))
  endwhile
  return {'text': text, 'range': {'startLine': range[0], 'startCharacter': range[1],
        \ 'endLine': range[2], 'endCharacter': range[3]}}
endfunction

" The screen column where the character at pos starts, or with last, ends.
function! s:Cell(pos, last) abort
  let line = getline(a:pos[1])
  let before = strpart(line, 0, a:pos[2] - 1)
  return a:last ? strdisplaywidth(before . matchstr(line, '.', a:pos[2] - 1)) : strdisplaywidth(before) + 1
endfunction

" [the 0-based index of the first character, the characters] of text that lie
" within screen columns left to right.
function! s:Within(text, left, right) abort
  let [first, taken, index, width] = [-1, '', 0, 0]
  for char in split(a:text, '\zs')
    let start = width + 1
    let width += strdisplaywidth(char, width)
    if start >= a:left && width <= a:right
      let [first, taken] = [first < 0 ? index : first, taken . char]
    endif
    let index += 1
  endfor
  return [first < 0 ? index : first, taken]
endfunction

" ---- reviewing proposals ---------------------------------------------------

function! s:Relative(path) abort
  return fnamemodify(a:path, ':.')
endfunction

function! s:TabOf(id) abort
  for tab in range(1, tabpagenr('$'))
    if gettabvar(tab, 'companion4j_review', '') ==# a:id
      return tab
    endif
  endfor
  return 0
endfunction

" The variables of attach's `terminal` answer that a terminal may take: the
" IDE's (Companion.terminalEnvironment), each of its form; any other name (say
" NODE_OPTIONS) would run what it names. [{name: value}, [dropped names]], or
" [v:null, []] when the answer is not a Dictionary.
let s:TERMINAL = {
      \ 'QWEN_CODE_IDE_SERVER_PORT': '^\d\{1,5}$',
      \ 'GEMINI_CLI_IDE_SERVER_PORT': '^\d\{1,5}$',
      \ 'QWEN_CODE_IDE_WORKSPACE_PATH': '^[^[:cntrl:]]*$',
      \ 'GEMINI_CLI_IDE_WORKSPACE_PATH': '^[^[:cntrl:]]*$',
      \ 'GEMINI_CLI_IDE_AUTH_TOKEN': '^[^[:cntrl:]]*$',
      \ 'REMOTE_CONTAINERS': '^[^[:cntrl:]]*$',
      \ }

function! s:TerminalVariables(all) abort
  if type(a:all) != v:t_dict
    return [v:null, []]
  endif
  let [env, dropped] = [{}, []]
  for [name, value] in items(a:all)
    if has_key(s:TERMINAL, name) && type(value) == v:t_string && value =~# s:TERMINAL[name]
      let env[name] = value
    else
      call add(dropped, substitute(name, '[[:cntrl:]]', '?', 'g'))
    endif
  endfor
  return [env, sort(dropped)]
endfunction

" Vim has no language-server client of its own for the companion to ask, so
" every question about code is answered at once with why: an unanswered one
" would keep the model waiting until the companion gives up. Another editor
" following the same companion may have answered first; that refusal is no news.
function! s:RefuseCodeQuery(query) abort
  if !s:IsDiffId(get(a:query, 'id', ''))
    return
  endif
  call companion4j#attach#request('codeAnswer', {'id': a:query.id,
        \ 'error': 'Vim has no language-server client the companion can ask, so it cannot answer '
        \ . 'questions about code; an editor with one (Neovim, Emacs with eglot) can'},
        \ {result, error -> 0})
endfunction

" Whether a value from the companion has the form of a diff id, sixteen hex
" digits (the engine's DiffId), and may go into a buffer name.
function! s:IsDiffId(id) abort
  return type(a:id) == v:t_string && len(a:id) == 16 && a:id =~# '^[0-9a-f]\{16}$'
endfunction

" Whether a path from the companion is absolute and free of control characters,
" fit for an Ex command and a buffer name.
function! s:IsPath(path) abort
  return type(a:path) == v:t_string && a:path =~# '^/' && a:path !~# '[[:cntrl:]]'
endfunction

" A new tab: the file on the left, the proposal on the right, as a diff.
function! s:Open(diff) abort
  if !s:IsDiffId(get(a:diff, 'id'))
    return s:Warn('refused a proposal whose id is not sixteen hex digits')
  elseif !s:IsPath(get(a:diff, 'filePath'))
    return s:Warn('refused a proposal whose file is not an absolute path without control characters')
  elseif type(get(a:diff, 'newContent')) != v:t_string
    return s:Warn('refused a proposal without its text')
  endif
  if has_key(s:proposals, a:diff.id)
    return
  endif
  let rel = s:Relative(a:diff.filePath)
  let proposal = {'id': a:diff.id, 'filePath': a:diff.filePath, 'rel': rel, 'buf': -1,
        \ 'clientName': get(a:diff, 'clientName', 'a CLI'), 'answering': 0, 'from': win_getid()}
  let s:proposals[a:diff.id] = proposal
  let s:opening = 1
  try
    if get(a:diff, 'change', '') ==# 'new' || !filereadable(a:diff.filePath)
      silent tabnew
      setlocal buftype=nofile bufhidden=wipe noswapfile
      silent execute 'file' fnameescape(rel . ' (new file)')
      if exists('#filetypedetect#BufRead')
        execute 'silent doautocmd filetypedetect BufRead' fnameescape(a:diff.filePath)
      endif
      setlocal nomodifiable
    else
      execute 'silent keepalt tabedit' fnameescape(a:diff.filePath)
    endif
    let t:companion4j_review = a:diff.id
    let filetype = &filetype
    diffthis
    silent keepalt rightbelow vnew
    setlocal buftype=acwrite bufhidden=wipe noswapfile
    silent execute 'file' fnameescape('companion://' . a:diff.id . '/' . rel)
    let text = a:diff.newContent
    let dos = text =~# "\r\n" && text !~# "[^\r]\n"
    let lines = split(text, dos ? "\r\n" : "\n", 1)
    let eol = len(lines) > 1 && lines[-1] ==# ''
    if eol
      call remove(lines, -1)
    endif
    setlocal undolevels=-1
    call setline(1, lines)
    setlocal undolevels<
    let &l:fileformat = dos ? 'dos' : 'unix'
    let &l:endofline = eol
    setlocal nofixendofline
    let &l:filetype = filetype
    setlocal nomodified
    diffthis
    " A message goes with the next redraw; the proposal's own status line keeps
    " saying what it is and how to answer it.
    let &l:statusline = ' proposed ' . substitute(rel, '%', '%%', 'g') . ' · :w accepts, :q rejects'
    let b:companion4j_proposal = a:diff.id
    let proposal.buf = bufnr('%')
    augroup companion4j_proposal
      autocmd! * <buffer>
      autocmd BufWriteCmd <buffer> call s:Accept(str2nr(expand('<abuf>')))
      autocmd BufWipeout <buffer> call s:Wiped(str2nr(expand('<abuf>')))
    augroup END
  finally
    let s:opening = 0
  endtry
  redrawstatus!
  let name = proposal.clientName
  let text = ' proposes an edit to ' . rel . ': :w accepts, :q rejects'
  if strdisplaywidth('companion4j: ' . name . text) > &columns - 14
    let name = substitute(name, '\s*(.*)$', '', '')
  endif
  call s:Say(name . text)
endfunction

function! s:ByBuf(buf) abort
  for proposal in values(s:proposals)
    if proposal.buf == a:buf
      return proposal
    endif
  endfor
  return {}
endfunction

" The proposal in the current tab, for :Companion4jAccept and :Companion4jReject.
function! s:Current() abort
  let id = exists('b:companion4j_proposal') ? b:companion4j_proposal : get(t:, 'companion4j_review', '')
  let proposal = get(s:proposals, id, {})
  if empty(proposal)
    call s:Warn('no proposal here: answer in the tab of a proposal')
  endif
  return proposal
endfunction

" :w in a proposal: the CLI writes the buffer's text (the file is not written here).

" :w in a proposal: the CLI writes the buffer's text (the file is not written here).
function! s:Accept(buf) abort
  let proposal = s:ByBuf(a:buf)
  if empty(proposal) || proposal.answering
    return
  endif
  let newline = getbufvar(a:buf, '&fileformat') ==# 'dos' ? "\r\n" : "\n"
  let content = join(getbufline(a:buf, 1, '$'), newline)
  if getbufvar(a:buf, '&endofline')
    let content .= newline
  endif
  let proposal.answering = 1
  call setbufvar(a:buf, '&modified', 0)
  call companion4j#attach#request('accept', {'diff': proposal.id, 'content': content},
        \ function('s:Answered', [proposal, 1]))
endfunction

function! companion4j#accept() abort
  let proposal = s:Current()
  if !empty(proposal)
    call s:Accept(proposal.buf)
  endif
endfunction

function! companion4j#reject() abort
  let proposal = s:Current()
  if empty(proposal) || proposal.answering
    return
  endif
  let proposal.answering = 1
  call companion4j#attach#request('reject', {'diff': proposal.id}, function('s:Answered', [proposal, 0]))
endfunction

" The proposal's buffer went (:q, :tabclose, :bdelete): that rejects it.
function! s:Wiped(buf) abort
  let proposal = s:ByBuf(a:buf)
  if empty(proposal)
    return
  endif
  let proposal.buf = -1
  if proposal.answering || s:leaving
    return
  endif
  let proposal.answering = 1
  call companion4j#attach#request('reject', {'diff': proposal.id}, function('s:Answered', [proposal, 0]))
  " Windows cannot close inside this autocommand.
  call timer_start(0, {-> s:CloseReview(proposal)})
endfunction

" The answer to accept or reject. Only a result reached the CLI; detached and
" failed reached nothing, so the proposal stays open for another try; any
" other error ended it (docs/attach.md).
function! s:Answered(proposal, accept, result, error) abort
  let code = get(a:error, 'code', '')
  if (code ==# 'detached' || code ==# 'failed') && bufexists(a:proposal.buf)
    let a:proposal.answering = 0
    if a:accept
      call setbufvar(a:proposal.buf, '&modified', 1)
    endif
    call s:Warn((code ==# 'detached' ? 'the companion did not answer' : get(a:error, 'message', 'the companion refused'))
          \ . '; the proposal is still open')
    return
  endif
  if empty(a:error)
    let message = a:accept
          \ ? 'accepted: ' . substitute(a:proposal.clientName, '\s*(.*)$', '', '') . ' writes ' . a:proposal.rel
          \ : 'rejected the edit to ' . a:proposal.rel
  elseif code ==# 'detached' || code ==# 'failed'
    let message = 'the companion did not answer; the proposal for ' . a:proposal.rel . ' is still pending'
  else
    let message = get(a:error, 'message', 'the proposal for ' . a:proposal.rel . ' ended: '
          \ . get(s:WHY, get(a:error, 'outcome', ''), code))
  endif
  call s:WhenNormal(function('s:Finish', [a:proposal.id, message]))
  if a:accept && empty(a:error)
    for delay in [500, 2500]
      call timer_start(delay, function('s:Reload', [a:proposal.filePath]))
    endfor
  endif
endfunction

" diffClosed: the proposal ended elsewhere (answered in the CLI, withdrawn,
" replaced, its CLI left): close it without answering.
function! s:ClosedByCompanion(closed) abort
  let proposal = get(s:proposals, a:closed.id, {})
  if empty(proposal)
    return
  endif
  if proposal.answering
    " Our own answer; its reply says how it went.
    call s:Finish(a:closed.id, '')
    return
  endif
  let why = get(s:WHY, a:closed.outcome, a:closed.outcome)
  call s:Finish(a:closed.id, 'the proposal for ' . proposal.rel . ' was closed: ' . why)
  if a:closed.outcome ==# 'accepted'
    for delay in [500, 2500]
      call timer_start(delay, function('s:Reload', [proposal.filePath]))
    endfor
  endif
endfunction

" Forgets a proposal and closes its tab; message, if any, says why.
function! s:Finish(id, message) abort
  let proposal = get(s:proposals, a:id, {})
  if !empty(proposal)
    call remove(s:proposals, a:id)
    let proposal.answering = 1
    call s:CloseReview(proposal)
    redrawstatus!
  endif
  if !empty(a:message)
    call s:Say(a:message)
  endif
endfunction

function! s:CloseReview(proposal) abort
  silent! call remove(s:proposals, a:proposal.id)
  let tab = s:TabOf(a:proposal.id)
  if tab > 0 && tabpagenr('$') > 1
    execute 'silent! noautocmd' tab . 'tabclose!'
  elseif tab > 0
    execute 'tabnext' tab
    diffoff!
    unlet! t:companion4j_review
    if bufexists(a:proposal.buf) && winnr('$') > 1
      execute 'silent!' bufwinnr(a:proposal.buf) . 'close!'
    endif
  endif
  if bufexists(a:proposal.buf)
    execute 'silent! bwipeout!' a:proposal.buf
  endif
  call win_gotoid(a:proposal.from)
  redrawstatus!
endfunction

" Reloads the file the CLI wrote, in the buffers that have no changes of their own.
function! s:Reload(path, ...) abort
  for info in getbufinfo({'bufloaded': 1})
    if info.changed || empty(info.name) || fnamemodify(info.name, ':p') !=# a:path
      continue
    endif
    augroup companion4j_reload
      autocmd!
      autocmd FileChangedShell * if v:fcs_reason ==# 'changed' | let v:fcs_choice = 'reload' | endif
    augroup END
    try
      execute 'silent! checktime' info.bufnr
    finally
      autocmd! companion4j_reload
    endtry
  endfor
endfunction

function! companion4j#review() abort
  call companion4j#attach#request('state', {}, function('s:GotReview'))
endfunction

function! s:GotReview(state, error) abort
  if get(a:error, 'code', '') ==# 'detached'
    return s:Warn(s:NoCompanion())
  elseif !empty(a:error)
    return s:Warn(get(a:error, 'message', 'the companion refused'))
  endif
  let diffs = get(a:state, 'pendingDiffs', [])
  if empty(diffs)
    return s:Say('no proposed edit is pending')
  endif
  for diff in diffs
    call s:Open(diff)
  endfor
  let tab = s:TabOf(get(diffs[0], 'id', ''))
  if tab > 0
    execute 'tabnext' tab
  endif
endfunction

" A proposal's id and file, for scripts and tests.
function! companion4j#proposals() abort
  let list = []
  for proposal in values(s:proposals)
    call add(list, {'id': proposal.id, 'filePath': proposal.filePath, 'bufnr': proposal.buf})
  endfor
  return list
endfunction

" ---- openFile ----------------------------------------------------------------

" The model asked to show a place: open it in a window for files, out of any review.
function! s:OpenFile(place) abort
  if !s:IsPath(get(a:place, 'path'))
    return s:Warn('refused to open a file that is not an absolute path without control characters')
  endif
  if exists('t:companion4j_review')
    for tab in range(1, tabpagenr('$'))
      if empty(gettabvar(tab, 'companion4j_review', ''))
        execute 'tabnext' tab
        break
      endif
    endfor
  endif
  if !empty(&buftype)
    let windows = filter(range(1, winnr('$')), 'empty(getbufvar(winbufnr(v:val), "&buftype"))')
    if empty(windows)
      silent new
    else
      execute windows[0] . 'wincmd w'
    endif
  endif
  let path = a:place.path
  let shown = filter(range(1, winnr('$')), 'fnamemodify(bufname(winbufnr(v:val)), ":p") ==# path')
  if !empty(shown)
    execute shown[0] . 'wincmd w'
  elseif &modified && !&hidden && &bufhidden !~# 'hide' && len(win_findbuf(bufnr('%'))) <= 1
    execute 'silent keepalt split' fnameescape(fnamemodify(path, ':~:.'))
  else
    execute 'silent keepalt edit' fnameescape(fnamemodify(path, ':~:.'))
  endif
  let line = get(a:place, 'line', 0)
  if line > 0
    let line = min([line, line('$')])
    let character = max([get(a:place, 'character', 1), 1])
    let col = byteidx(getline(line), character - 1)
    call cursor(line, col < 0 ? col([line, '$']) : col + 1)
    normal! zv
  endif
  redraw
endfunction

" ---- starting a companion, running a CLI, status -----------------------------

function! companion4j#start() abort
  if !companion4j#attach#running()
    call s:Say('starting a companion for ' . fnamemodify(getcwd(), ':~'))
    return s:Launch(1)
  elseif s:attached
    return s:Say('a companion already serves ' . fnamemodify(getcwd(), ':~') . ' on port ' . s:port)
  endif
  let s:starting = 1
  call s:Say('starting a companion for ' . fnamemodify(s:dir, ':~'))
  call companion4j#attach#request('start', {}, function('s:Started'))
endfunction

" The answer to start; `attached` says when the companion runs.
function! s:Started(result, error) abort
  if !empty(a:error)
    let s:starting = 0
    call s:Warn('no companion started: ' . get(a:error, 'message', get(a:error, 'code', '')))
  elseif get(a:result, 'started', v:false) isnot v:true
    call s:Say('a companion already serves ' . fnamemodify(s:dir, ':~') . ' on port ' . get(a:result, 'port', 0))
  endif
endfunction

" :Companion4jRun: the command in a terminal window whose environment points
" the CLI at this companion (the variables never show on its command line).
function! companion4j#run(command) abort
  if !has('terminal')
    return s:Warn('this Vim has no +terminal')
  elseif !executable(a:command[0])
    return s:Warn(a:command[0] . ' is not on PATH')
  endif
  call companion4j#attach#request('terminal', {}, function('s:RunWith', [a:command]))
endfunction

" The answer holds the token: it goes into the terminal's environment and
" nowhere else.
function! s:RunWith(command, variables, error) abort
  if get(a:error, 'code', '') ==# 'detached'
    return s:Warn(s:NoCompanion() . '; :Companion4jStart starts one')
  elseif !empty(a:error)
    return s:Warn(get(a:error, 'message', 'the companion refused'))
  endif
  let [env, dropped] = s:TerminalVariables(a:variables)
  if type(env) != v:t_dict
    return s:Warn('the companion''s terminal variables are not a JSON object; nothing was started')
  endif
  if !empty(dropped)
    call s:Warn('ignored terminal variables that are not the IDE''s: ' . join(dropped, ', '))
  endif
  let options = {'env': env, 'term_name': join(a:command)}
  if s:Option('run_vertical', 0)
    let options.vertical = 1
  endif
  call term_start(a:command, options)
endfunction

function! companion4j#status() abort
  if !s:attached
    echo 'companion4j: ' . s:NoCompanion()
          \ . (s:Option('autostart', 0) ? '' : ' (:Companion4jStart starts one)')
    return
  endif
  let lines = ['companion4j: the companion on port ' . s:port . (s:started ? ', started by this Vim' : '')]
  call add(lines, '  workspace: ' . join(s:roots, ', '))
  let labels = sort(values(s:clients))
  call add(lines, '  CLIs: ' . (empty(labels) ? 'none' : join(labels, '; ')))
  let open = map(values(s:proposals), 'v:val.rel . " (" . v:val.clientName . ")"')
  call add(lines, '  proposals: ' . (empty(open) ? 'none' : join(sort(open), ', ')))
  echo join(lines, "\n")
endfunction

" For 'statusline': C4J off, C4J gone, C4J 2 CLIs, C4J 1 CLI · 1 to review.
function! companion4j#statusline() abort
  if !s:attached
    return s:gone ? 'C4J gone' : 'C4J off'
  endif
  let clients = len(s:clients)
  let text = 'C4J ' . clients . (clients == 1 ? ' CLI' : ' CLIs')
  if !empty(s:proposals)
    let text .= ' · ' . len(s:proposals) . ' to review'
  endif
  return text
endfunction

function! companion4j#leaving() abort
  let s:leaving = 1
endfunction

let &cpoptions = s:save_cpo
unlet s:save_cpo
