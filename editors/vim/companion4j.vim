" companion4j.vim: tells a running `companion4j serve` which file you edit in
" Vim, where the cursor is and what is selected, so Qwen Code / Gemini CLI see
" it as IDE context, and lets you review the edits they propose. Needs Vim 8.2+
" (+job +timers +channel) and curl.
"
"   :Companion4jReview   on a file: opens the CLI's pending proposal for it
"                        beside it, as a diff; edit the proposal if you like
"   :Companion4jAccept   in that proposal: the CLI writes it, edits included
"   :Companion4jReject   in that proposal: the CLI is told no
"
" Answers name the proposal you reviewed by its id: if the CLI replaced it
" meanwhile, or left, the answer changes nothing and says so.
"
" Load it from your vimrc:  source /path/to/companion4j.vim
"
" It finds the companion for the current directory in the discovery files that
" `companion4j serve` writes ($QWEN_HOME/ide/*.lock, else ~/.qwen/ide);
" $COMPANION4J_EDITOR_API and $COMPANION4J_TOKEN override that. The token goes
" to curl on its stdin, never on its command line, where `ps` would show it.
if exists('g:loaded_companion4j') || !has('job') || !has('timers')
  finish
endif
let g:loaded_companion4j = 1

let s:queue = []
let s:busy = 0
let s:timer = -1
let s:last_selection = ''

function! s:Find() abort
  if !empty($COMPANION4J_EDITOR_API) && !empty($COMPANION4J_TOKEN)
    return {'api': $COMPANION4J_EDITOR_API, 'token': $COMPANION4J_TOKEN}
  endif
  let dir = (empty($QWEN_HOME) ? $HOME . '/.qwen' : $QWEN_HOME) . '/ide'
  let cwd = getcwd()
  let best = {}
  let best_time = -1
  for file in glob(dir . '/*.lock', 0, 1)
    try
      let lock = json_decode(join(readfile(file), "\n"))
    catch
      continue
    endtry
    if type(lock) != v:t_dict || !has_key(lock, 'port') || !has_key(lock, 'authToken')
      continue
    endif
    for root in split(get(lock, 'workspacePath', ''), ':')
      let root = substitute(root, '/\+$', '', '')
      if (cwd ==# root || stridx(cwd, root . '/') == 0) && getftime(file) > best_time
        let best = {'api': 'http://127.0.0.1:' . lock.port . '/editor', 'token': lock.authToken}
        let best_time = getftime(file)
      endif
    endfor
  endfor
  return best
endfunction

function! s:Quote(text) abort
  return '"' . escape(a:text, '\"') . '"'
endfunction

" One request at a time, so the companion sees events in the order they happened.
function! s:SendNext() abort
  if s:busy || empty(s:queue)
    return
  endif
  let event = remove(s:queue, 0)
  let c = s:Find()
  if empty(c)
    let s:queue = []
    return
  endif
  let config = [
        \ 'url = ' . s:Quote(c.api . '/events'),
        \ 'header = ' . s:Quote('Authorization: Bearer ' . c.token),
        \ 'header = "Content-Type: application/json"',
        \ 'data-binary = ' . s:Quote(json_encode(event)),
        \ 'silent',
        \ 'max-time = 3']
  let s:busy = 1
  let job = job_start(['curl', '--config', '-'], {
        \ 'in_mode': 'raw', 'out_io': 'null', 'err_io': 'null',
        \ 'exit_cb': {job, status -> s:Done()}})
  if job_status(job) ==# 'fail'
    let s:busy = 0
    return
  endif
  let channel = job_getchannel(job)
  call ch_sendraw(channel, join(config, "\n") . "\n")
  call ch_close_in(channel)
endfunction

function! s:Done() abort
  let s:busy = 0
  call s:SendNext()
endfunction

function! s:Post(event) abort
  call add(s:queue, a:event)
  call s:SendNext()
endfunction

function! s:FileOf(buf) abort
  let name = bufname(a:buf)
  if empty(name) || !empty(getbufvar(a:buf, '&buftype')) || !filereadable(name)
    return ''
  endif
  return fnamemodify(name, ':p')
endfunction

function! s:SelectedText() abort
  let mode = mode()
  if mode !=# 'v' && mode !=# 'V' && mode !=# "\<C-v>"
    return ''
  endif
  let [a, b] = [getpos('v'), getpos('.')]
  if a[1] > b[1] || (a[1] == b[1] && a[2] > b[2])
    let [a, b] = [b, a]
  endif
  let lines = getline(a[1], b[1])
  if mode ==# 'v'
    let lines[-1] = strpart(lines[-1], 0, b[2])
    let lines[0] = strpart(lines[0], a[2] - 1)
  endif
  return strpart(join(lines, "\n"), 0, 16384)
endfunction

function! s:ReportCursor(...) abort
  let path = s:FileOf(bufnr('%'))
  if empty(path)
    return
  endif
  " The editor API counts characters from 1; col() counts bytes.
  let character = strchars(strpart(getline('.'), 0, col('.') - 1)) + 1
  call s:Post({'type': 'cursor', 'path': path, 'line': line('.'), 'character': character})
  let text = s:SelectedText()
  if text !=# s:last_selection
    let s:last_selection = text
    call s:Post({'type': 'selection', 'path': path, 'text': text})
  endif
endfunction

function! s:CursorMoved() abort
  " Cursor moves come in bursts; report where the cursor comes to rest.
  call timer_stop(s:timer)
  let s:timer = timer_start(100, function('s:ReportCursor'))
endfunction

function! s:Focus(buf) abort
  let path = s:FileOf(a:buf)
  if !empty(path)
    call s:Post({'type': 'focus', 'path': path})
  endif
endfunction

function! s:Close(buf) abort
  let path = s:FileOf(a:buf)
  if !empty(path)
    call s:Post({'type': 'close', 'path': path})
  endif
endfunction

augroup companion4j
  autocmd!
  autocmd BufEnter,FocusGained * call s:Focus(str2nr(expand('<abuf>')))
  autocmd BufDelete,BufWipeout * call s:Close(str2nr(expand('<abuf>')))
  autocmd CursorMoved,CursorMovedI * call s:CursorMoved()
  if exists('##ModeChanged')
    autocmd ModeChanged * call s:CursorMoved()
  endif
augroup END

" ---- reviewing proposed edits ------------------------------------------

function! s:Say(text) abort
  echomsg 'companion4j: ' . a:text
endfunction

" Sends one request and waits for it: [status, body], or [] when no companion
" serves this directory.
function! s:Request(method, route, body) abort
  let c = s:Find()
  if empty(c)
    return []
  endif
  let config = [
        \ 'url = ' . s:Quote(c.api . a:route),
        \ 'request = ' . s:Quote(a:method),
        \ 'header = ' . s:Quote('Authorization: Bearer ' . c.token),
        \ 'write-out = "\n%{http_code}"',
        \ 'silent',
        \ 'max-time = 5']
  if a:method ==# 'POST'
    call add(config, 'header = "Content-Type: application/json"')
    call add(config, 'data-binary = ' . s:Quote(json_encode(a:body)))
  endif
  let out = system('curl --config -', join(config, "\n") . "\n")
  let at = strridx(out, "\n")
  return [str2nr(strpart(out, at + 1)), strpart(out, 0, max([at, 0]))]
endfunction

" The companion's reason for a refusal, e.g. "diff … is no longer pending: it
" was replaced by a newer proposal".
function! s:Reason(response) abort
  try
    let json = json_decode(a:response[1])
    if type(json) == v:t_dict && has_key(json, 'error')
      return json.error
    endif
  catch
  endtry
  return 'the companion answered ' . a:response[0]
endfunction

function! s:Review() abort
  let path = s:FileOf(bufnr('%'))
  if empty(path)
    return s:Say('this buffer is not a file on disk')
  endif
  let r = s:Request('GET', '/diffs', {})
  if empty(r)
    return s:Say('no companion serves ' . getcwd())
  elseif r[0] != 200
    return s:Say(s:Reason(r))
  endif
  let found = {}
  for d in json_decode(r[1])
    if d.filePath ==# path
      let found = d
    endif
  endfor
  if empty(found)
    return s:Say('no proposed edit is pending for ' . path)
  endif
  let filetype = &filetype
  diffthis
  vertical new
  setlocal buftype=nofile bufhidden=wipe noswapfile
  execute 'file' fnameescape('companion4j://' . found.id . '/' . fnamemodify(path, ':t'))
  let lines = split(found.newContent, "\n", 1)
  let b:companion4j_eol = lines[-1] ==# ''
  if b:companion4j_eol
    call remove(lines, -1)
  endif
  call setline(1, lines)
  let &l:filetype = filetype
  " The id of the proposal on show: answers name it, never the file.
  let b:companion4j_diff = found.id
  diffthis
  call s:Say('proposal ' . found.id . ' for ' . fnamemodify(path, ':~:.') . ': :Companion4jAccept or :Companion4jReject')
endfunction

function! s:Answer(accept) abort
  if !exists('b:companion4j_diff')
    return s:Say('answer in the proposal that :Companion4jReview opened')
  endif
  let body = {}
  if a:accept
    let body.content = join(getline(1, '$'), "\n") . (b:companion4j_eol ? "\n" : '')
  endif
  let r = s:Request('POST', '/diffs/' . b:companion4j_diff . (a:accept ? '/accept' : '/reject'), body)
  if empty(r)
    call s:Say('no companion serves ' . getcwd())
  elseif r[0] == 204
    diffoff!
    bwipeout
    call s:Say(a:accept ? 'accepted; the CLI writes the file' : 'rejected')
  else
    " 409: answered, replaced or closed meanwhile; 410: its CLI left. Nothing was written.
    call s:Say(s:Reason(r))
  endif
endfunction

command! Companion4jReview call s:Review()
command! Companion4jAccept call s:Answer(1)
command! Companion4jReject call s:Answer(0)
