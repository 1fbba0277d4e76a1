" companion4j.vim: the client of the editor API of `companion4j serve`.
" Commands and options: see plugin/companion4j.vim and :help companion4j.
scriptencoding utf-8

let s:save_cpo = &cpoptions
set cpoptions&vim

" The companion followed now, once it proved that it holds its token:
" {api, token, workspace}, or {} when none.
let s:conn = {}
" Why the newest companion for the directory failed its proof, while none is followed.
let s:gone = ''
" The proof under way: {candidates, first_failure}, or {} when none is.
let s:proving = {}
" The curl job that reads the event stream, and the event being read.
let s:stream = v:null
let s:event = ''
let s:data = []
" Whether the stream is live (its first line arrived).
let s:connected = 0
" The connected CLIs, id -> label.
let s:clients = {}
" The proposals open for review, id -> {id, filePath, rel, buf, clientName, answering, from}.
let s:proposals = {}
" Events wait here and go out one request at a time, in order.
let s:queue = []
let s:busy = 0
let s:enabled = 0
let s:leaving = 0
let s:opening = 0
let s:cursor_timer = -1
let s:retry_timer = -1
let s:retry_delay = 2000
let s:start_timer = -1
let s:start_tries = 0
let s:autostarted = 0
let s:last_selection = ''
let s:deferred = []
let s:defer_timer = -1
let s:said_gone = ''

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

" ---- finding the companion -------------------------------------------------

" The companions that may serve the current directory, newest first: the lock
" files whose workspace contains it, unless $COMPANION4J_EDITOR_API and
" $COMPANION4J_TOKEN name one. None is trusted before it proves itself.
function! s:Candidates() abort
  if !empty($COMPANION4J_EDITOR_API) && !empty($COMPANION4J_TOKEN)
    " Named by the environment, it can be as stale as a lock: it proves itself too.
    let api = substitute($COMPANION4J_EDITOR_API, '/\+$', '', '')
    let port = matchstr(api, '^http://\%(127\.0\.0\.1\|localhost\):\zs\d\{1,5}\ze/editor$')
    return [{'api': api, 'port': str2nr(port), 'token': $COMPANION4J_TOKEN, 'workspace': getcwd(), 'pid': 0}]
  endif
  let dir = (empty($QWEN_HOME) ? expand('~/.qwen') : $QWEN_HOME) . '/ide'
  let cwd = getcwd()
  let found = []
  for file in glob(dir . '/*.lock', 1, 1)
    try
      let lock = json_decode(join(readfile(file), "\n"))
    catch
      continue
    endtry
    if type(lock) != v:t_dict || type(get(lock, 'port')) != v:t_number
          \ || type(get(lock, 'authToken')) != v:t_string || empty(lock.authToken)
          \ || lock.port <= 0 || lock.port > 65535
      continue
    endif
    for root in split(get(lock, 'workspacePath', ''), ':')
      let root = substitute(root, '/\+$', '', '')
      if !empty(root) && (cwd ==# root || stridx(cwd, root . '/') == 0)
        call add(found, {'api': 'http://127.0.0.1:' . lock.port . '/editor', 'port': lock.port,
              \ 'token': lock.authToken, 'workspace': get(lock, 'workspacePath', ''),
              \ 'pid': type(get(lock, 'ppid')) == v:t_number ? lock.ppid : 0, 'time': getftime(file)})
        break
      endif
    endfor
  endfor
  return sort(found, {a, b -> b.time - a.time})
endfunction

" A value for curl's configuration: backslashes, quotes and line ends escaped,
" so that no value can end its line and add an option of its own.
function! s:Quote(text) abort
  let text = escape(a:text, '\"')
  let text = substitute(text, "\n", '\\n', 'g')
  let text = substitute(text, "\r", '\\r', 'g')
  let text = substitute(text, "\t", '\\t', 'g')
  return '"' . text . '"'
endfunction

" A fresh unpredictable nonce: 64 hex digits from the system's random source,
" or '' when there is none.
function! s:Nonce() abort
  try
    let bytes = readblob('/dev/urandom', 0, 32)
  catch
    return ''
  endtry
  return len(bytes) == 32 ? join(map(blob2list(bytes), 'printf("%02x", v:val)'), '') : ''
endfunction

" Asks the candidate's port to prove that it holds the candidate's token
" (docs/editor-api.md), sending nothing secret; calls Done('') when it does,
" else Done(why).
function! s:Prove(candidate, Done) abort
  if a:candidate.port <= 0
    return a:Done('its address ' . a:candidate.api . ' is not a loopback port')
  endif
  " Where /proc shows processes, a lock whose process ended needs no question.
  if a:candidate.pid > 0 && isdirectory('/proc/self') && !isdirectory('/proc/' . a:candidate.pid)
    return a:Done('its process ' . a:candidate.pid . ' ended')
  endif
  let nonce = s:Nonce()
  if empty(nonce)
    return a:Done('no random numbers to ask it with: /dev/urandom cannot be read')
  endif
  let context = {'out': [], 'expected': sha256('companion4j-proof:' . nonce . ':' . a:candidate.token), 'Done': a:Done}
  let job = s:Curl(['url = ' . s:Quote('http://127.0.0.1:' . a:candidate.port . '/ide/proof?nonce=' . nonce),
        \ 'noproxy = "*"', 'silent', 'connect-timeout = 3', 'max-time = 3', 'write-out = "\n%{http_code}"'],
        \ {'out_mode': 'raw', 'out_cb': function('s:RequestOutput', [context]),
        \ 'close_cb': function('s:Proved', [context])})
  if job is v:null
    call a:Done('curl cannot run')
  endif
endfunction

function! s:Proved(context, channel) abort
  let out = join(a:context.out, '')
  let at = strridx(out, "\n")
  let status = str2nr(strpart(out, at + 1))
  if status == 0
    return a:context.Done('nothing answers on its port')
  endif
  try
    let answer = json_decode(strpart(out, 0, at))
  catch
    let answer = {}
  endtry
  let proved = status == 200 && type(answer) == v:t_dict && get(answer, 'proof', '') is# a:context.expected
  call a:context.Done(proved ? '' : 'another process holds its port')
endfunction

" Proves the candidates for the directory, newest first, and calls Done() once
" one proved itself (s:conn) or none did (s:gone says why).
function! s:ProveCandidates(Done) abort
  if !empty(s:proving)
    return
  endif
  let s:proving = {'candidates': s:Candidates(), 'first_failure': '', 'Done': a:Done}
  call s:ProveNext()
endfunction

function! s:ProveNext() abort
  if empty(s:proving.candidates)
    let [s:gone, Done] = [s:proving.first_failure, s:proving.Done]
    let s:proving = {}
    return Done()
  endif
  call s:Prove(s:proving.candidates[0], function('s:ProvedOne'))
endfunction

function! s:ProvedOne(why) abort
  let candidate = remove(s:proving.candidates, 0)
  if empty(a:why)
    let s:conn = {'api': candidate.api, 'token': candidate.token, 'workspace': candidate.workspace}
    let [s:gone, Done] = ['', s:proving.Done]
    let s:proving = {}
    return Done()
  endif
  if empty(s:proving.first_failure)
    let s:proving.first_failure = 'the companion on port ' . candidate.port . ' is gone (' . a:why . ')'
  endif
  call s:ProveNext()
endfunction

" Why no companion is followed, for messages.
function! s:NoCompanion() abort
  return empty(s:gone) ? 'no companion serves ' . fnamemodify(getcwd(), ':~') : s:gone
endfunction

" Starts curl with its configuration on stdin: the token never shows in a
" process list.
function! s:Curl(config, options) abort
  let options = extend({'in_mode': 'raw', 'err_io': 'null'}, a:options)
  try
    let job = job_start([s:Option('curl', 'curl'), '--config', '-'], options)
  catch
    return v:null
  endtry
  if job_status(job) ==# 'fail'
    return v:null
  endif
  let channel = job_getchannel(job)
  call ch_sendraw(channel, join(a:config, "\n") . "\n")
  call ch_close_in(channel)
  return job
endfunction

function! s:Config(conn, route, extra) abort
  return ['url = ' . s:Quote(a:conn.api . a:route),
        \ 'header = ' . s:Quote('Authorization: Bearer ' . a:conn.token),
        \ 'noproxy = "*"',
        \ 'silent'] + a:extra
endfunction

" Sends one request to the proven companion and calls back with (status,
" body); status 0 when none is followed or it did not answer.
function! s:Request(method, route, body, Callback) abort
  let conn = s:conn
  if empty(conn)
    call a:Callback(0, '')
    return
  endif
  let config = s:Config(conn, a:route, [
        \ 'request = ' . s:Quote(a:method),
        \ 'write-out = "\n%{http_code}"',
        \ 'connect-timeout = 3',
        \ 'max-time = 15'])
  if a:method ==# 'POST'
    call add(config, 'header = "Content-Type: application/json"')
    call add(config, 'data-binary = ' . s:Quote(empty(a:body) ? '{}' : json_encode(a:body)))
  endif
  let context = {'out': [], 'Callback': a:Callback}
  let job = s:Curl(config, {'out_mode': 'raw',
        \ 'out_cb': function('s:RequestOutput', [context]),
        \ 'close_cb': function('s:RequestDone', [context])})
  if job is v:null
    call a:Callback(0, '')
  endif
endfunction

function! s:RequestOutput(context, channel, text) abort
  call add(a:context.out, a:text)
endfunction

function! s:RequestDone(context, channel) abort
  let out = join(a:context.out, '')
  let at = strridx(out, "\n")
  let status = str2nr(strpart(out, at + 1))
  if status == 0 || status == 401
    " Gone, or restarted with a new port or token: it proves itself again.
    let s:conn = {}
    if s:StreamRunning()
      call job_stop(s:stream)
    endif
  endif
  call a:context.Callback(status, at < 0 ? '' : strpart(out, 0, at))
endfunction

" The companion's reason for a refusal, e.g. "diff … is no longer pending: it
" was replaced by a newer proposal".
function! s:Reason(status, body) abort
  try
    let json = json_decode(a:body)
    if type(json) == v:t_dict && has_key(json, 'error')
      return json.error
    endif
  catch
  endtry
  return 'the companion answered ' . a:status
endfunction

" ---- the event stream ------------------------------------------------------

function! companion4j#enable() abort
  if s:enabled
    return
  endif
  let s:enabled = 1
  call s:Connect()
endfunction

function! s:StreamRunning() abort
  return s:stream isnot v:null && job_status(s:stream) ==# 'run'
endfunction

function! s:Connect(...) abort
  let s:retry_timer = -1
  if s:StreamRunning() || s:leaving
    return
  endif
  call s:ProveCandidates(function('s:Follow'))
endfunction

" Follows the events of the companion that proved itself, else looks again soon.
function! s:Follow() abort
  redrawstatus!
  if !empty(s:gone) && s:gone !=# s:said_gone
    call s:Warn(s:gone)
  endif
  let s:said_gone = s:gone
  if s:StreamRunning() || s:leaving
    return
  endif
  if empty(s:conn)
    if s:Option('autostart', 0) && !s:autostarted
      let s:autostarted = 1
      call s:Launch()
    endif
    " None runs, or none proved itself: look again now and then.
    call s:Retry(2000)
    return
  endif
  let s:event = ''
  let s:data = []
  let s:stream = s:Curl(s:Config(s:conn, '/events/stream', [
        \ 'header = "Accept: text/event-stream"',
        \ 'no-buffer',
        \ 'fail',
        \ 'connect-timeout = 3']),
        \ {'out_mode': 'nl', 'out_cb': function('s:StreamLine'), 'exit_cb': function('s:StreamEnded')})
  if s:stream is v:null
    call s:Retry(s:retry_delay)
  endif
endfunction

function! s:Retry(delay) abort
  if s:retry_timer == -1 && !s:leaving
    let s:retry_timer = timer_start(a:delay, function('s:Connect'))
  endif
endfunction

function! s:StreamLine(channel, line) abort
  let line = substitute(a:line, '\r$', '', '')
  if !s:connected
    " The companion opens the stream with a comment: it is live.
    let s:connected = 1
    let s:retry_delay = 2000
    call s:Synchronize()
  endif
  if line ==# ''
    if s:event !=# '' || !empty(s:data)
      let [event, data] = [s:event, join(s:data, "\n")]
      let s:event = ''
      let s:data = []
      call s:Dispatch(event, data)
    endif
  elseif line[0] ==# ':'
    " A keep-alive.
  elseif line =~# '^event:'
    let s:event = substitute(line[6:], '^ ', '', '')
  elseif line =~# '^data:'
    call add(s:data, substitute(line[5:], '^ ', '', ''))
  endif
endfunction

function! s:StreamEnded(job, status) abort
  let was_connected = s:connected
  let s:stream = v:null
  let s:connected = 0
  let s:clients = {}
  let s:conn = {}
  redrawstatus!
  if !was_connected
    " A stale lock file, or a companion that refuses us: back off a little.
    let s:retry_delay = min([s:retry_delay * 2, 10000])
  endif
  call s:Retry(was_connected ? 2000 : s:retry_delay)
endfunction

" On (re)connect: the CLIs, the pending proposals and where the user is.
function! s:Synchronize() abort
  call s:Request('GET', '/state', {}, function('s:GotState'))
  call s:Request('GET', '/diffs', {}, function('s:GotDiffs'))
  call companion4j#focus(bufnr('%'))
  call s:ReportCursor()
endfunction

function! s:GotState(status, body) abort
  if a:status != 200
    return
  endif
  let state = json_decode(a:body)
  let s:clients = {}
  for client in get(state, 'clients', [])
    let s:clients[client.id] = client.label
  endfor
  if !empty(s:conn) && !empty(get(state, 'workspaceRoots', []))
    let s:conn.workspace = join(state.workspaceRoots, ':')
  endif
  redrawstatus!
endfunction

function! s:GotDiffs(status, body) abort
  if a:status != 200
    return
  endif
  let pending = {}
  for diff in json_decode(a:body)
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
endfunction

function! s:Dispatch(event, data) abort
  try
    let data = json_decode(a:data)
    if a:event ==# 'clientConnected'
      let s:clients[data.id] = data.label
      redrawstatus!
    elseif a:event ==# 'clientDisconnected'
      silent! call remove(s:clients, data.id)
      redrawstatus!
    elseif a:event ==# 'diffOpened'
      call s:WhenNormal(function('s:Open', [data]))
    elseif a:event ==# 'diffClosed'
      call s:WhenNormal(function('s:ClosedByCompanion', [data]))
    elseif a:event ==# 'openFile'
      call s:WhenNormal(function('s:OpenFile', [data]))
    endif
  catch
    call s:Warn(a:event . ': ' . v:exception)
  endtry
endfunction

" Windows change only in Normal mode (or in a terminal): otherwise wait, so
" nothing lands in the middle of typing.
function! s:WhenNormal(Fn) abort
  if mode() ==# 'n' || mode() ==# 't'
    call a:Fn()
    return
  endif
  call add(s:deferred, a:Fn)
  if s:defer_timer == -1
    let s:defer_timer = timer_start(250, function('s:RunDeferred'), {'repeat': -1})
  endif
endfunction

function! s:RunDeferred(timer) abort
  if mode() !=# 'n' && mode() !=# 't'
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

function! s:Post(event) abort
  if !s:connected
    return
  endif
  call add(s:queue, a:event)
  call s:SendNext()
endfunction

function! s:SendNext() abort
  if s:busy || empty(s:queue)
    return
  endif
  let s:busy = 1
  call s:Request('POST', '/events', remove(s:queue, 0), function('s:Sent'))
endfunction

function! s:Sent(status, body) abort
  let s:busy = 0
  if a:status == 0
    let s:queue = []
    return
  endif
  call s:SendNext()
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
  if !s:connected
    return
  endif
  let name = bufname(a:buf)
  if empty(name) || !empty(getbufvar(a:buf, '&buftype')) || !filereadable(name)
    return
  endif
  call s:Post({'type': 'close', 'path': fnamemodify(name, ':p')})
endfunction

function! companion4j#cursor_moved() abort
  if !s:connected
    return
  endif
  " Cursor moves come in bursts; report where the cursor comes to rest.
  call timer_stop(s:cursor_timer)
  let s:cursor_timer = timer_start(100, function('s:ReportCursor'))
endfunction

function! companion4j#dir_changed() abort
  let apis = map(s:Candidates(), 'v:val.api')
  if empty(s:conn) || index(apis, s:conn.api) < 0
    if s:StreamRunning()
      call job_stop(s:stream)
    else
      call s:Connect()
    endif
  endif
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
    let [left, right] = [min([a[2], b[2]]), max([a[2], b[2]])]
    call map(lines, 'strpart(v:val, left - 1, right - left + 1)')
    let range = [a[1], s:Character(first, left), b[1], s:Character(last, right) + 1]
  endif
  let text = strcharpart(join(lines, "\n"), 0, 16384)
  while len(text) > 16384
    let text = strcharpart(text, 0, strchars(text) - max([1, (len(text) - 16384) / 4]))
  endwhile
  return {'text': text, 'range': {'startLine': range[0], 'startCharacter': range[1],
        \ 'endLine': range[2], 'endCharacter': range[3]}}
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

" The variables of GET /editor/terminal that a terminal may take: the IDE's
" (Companion.terminalEnvironment), each of its form; any other name (say
" NODE_OPTIONS) would run what it names. [{name: value}, [dropped names]], or
" [v:null, []] when the text is not a JSON object.
let s:TERMINAL = {
      \ 'QWEN_CODE_IDE_SERVER_PORT': '^\d\{1,5}$',
      \ 'GEMINI_CLI_IDE_SERVER_PORT': '^\d\{1,5}$',
      \ 'QWEN_CODE_IDE_WORKSPACE_PATH': '^[^[:cntrl:]]*$',
      \ 'GEMINI_CLI_IDE_WORKSPACE_PATH': '^[^[:cntrl:]]*$',
      \ 'GEMINI_CLI_IDE_AUTH_TOKEN': '^[^[:cntrl:]]*$',
      \ 'REMOTE_CONTAINERS': '^[^[:cntrl:]]*$',
      \ }

function! s:TerminalVariables(body) abort
  try
    let all = json_decode(a:body)
  catch
    return [v:null, []]
  endtry
  if type(all) != v:t_dict
    return [v:null, []]
  endif
  let [env, dropped] = [{}, []]
  for [name, value] in items(all)
    if has_key(s:TERMINAL, name) && type(value) == v:t_string && value =~# s:TERMINAL[name]
      let env[name] = value
    else
      call add(dropped, substitute(name, '[[:cntrl:]]', '?', 'g'))
    endif
  endfor
  return [env, sort(dropped)]
endfunction

" Whether a value from the companion has the form of a diff id, sixteen hex
" digits (the engine's DiffId), and may go into a URL, a buffer name and curl's
" configuration.
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
    if a:diff.change ==# 'new' || !filereadable(a:diff.filePath)
      silent tabnew
      setlocal buftype=nofile bufhidden=wipe noswapfile
      silent execute 'file' fnameescape(rel . ' (new file)')
      execute 'silent doautocmd filetypedetect BufRead' fnameescape(a:diff.filePath)
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
  call s:Request('POST', '/diffs/' . proposal.id . '/accept', {'content': content},
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
  call s:Request('POST', '/diffs/' . proposal.id . '/reject', {}, function('s:Answered', [proposal, 0]))
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
  call s:Request('POST', '/diffs/' . proposal.id . '/reject', {}, function('s:Answered', [proposal, 0]))
  " Windows cannot close inside this autocommand.
  call timer_start(0, {-> s:CloseReview(proposal)})
endfunction

function! s:Answered(proposal, accept, status, body) abort
  if a:status == 0 && bufexists(a:proposal.buf)
    " The companion did not answer: keep the proposal so the answer can be retried.
    let a:proposal.answering = 0
    if a:accept
      call setbufvar(a:proposal.buf, '&modified', 1)
    endif
    call s:Warn('the companion did not answer; the proposal is still open')
    return
  endif
  if a:status == 204
    let message = a:accept
          \ ? 'accepted: ' . substitute(a:proposal.clientName, '\s*(.*)$', '', '') . ' writes ' . a:proposal.rel
          \ : 'rejected the edit to ' . a:proposal.rel
  elseif a:status == 0
    let message = 'the companion did not answer; the proposal for ' . a:proposal.rel . ' is still pending'
  else
    let message = s:Reason(a:status, a:body)
  endif
  call s:WhenNormal(function('s:Finish', [a:proposal.id, message]))
  if a:accept && a:status == 204
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
  call s:Request('GET', '/diffs', {}, function('s:GotReview'))
endfunction

function! s:GotReview(status, body) abort
  if a:status == 0
    return s:Warn(s:NoCompanion())
  elseif a:status != 200
    return s:Warn(s:Reason(a:status, a:body))
  endif
  let diffs = json_decode(a:body)
  if empty(diffs)
    return s:Say('no proposed edit is pending')
  endif
  for diff in diffs
    call s:Open(diff)
  endfor
  let tab = s:TabOf(diffs[0].id)
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
  if !empty(s:conn)
    call s:Say('a companion already serves ' . fnamemodify(getcwd(), ':~') . ' at ' . s:conn.api)
    call s:Connect()
    return
  endif
  call s:Launch()
endfunction

" Starts `companion4j serve` for the current directory in the background; it
" stops when Vim exits, as an editor's own companion does.
function! s:Launch() abort
  let command = s:Option('command', 'companion4j')
  let command = type(command) == v:t_list ? copy(command) : split(command)
  if empty(command) || !executable(command[0])
    return s:Warn('cannot run ' . string(command) . '; put companion4j on PATH or set g:companion4j_command')
  endif
  try
    call job_start(command + ['serve', '--workspace', getcwd()],
          \ {'in_io': 'null', 'out_io': 'null', 'err_io': 'null', 'stoponexit': 'term'})
  catch
    return s:Warn('cannot run ' . string(command) . ': ' . v:exception)
  endtry
  call s:Say('starting a companion for ' . fnamemodify(getcwd(), ':~'))
  let s:start_tries = 60
  call timer_stop(s:start_timer)
  let s:start_timer = timer_start(500, function('s:WaitForLock'), {'repeat': -1})
endfunction

function! s:WaitForLock(timer) abort
  let s:start_tries -= 1
  if !empty(s:conn)
    call timer_stop(a:timer)
    call s:Say('the companion is running')
  elseif !empty(s:Candidates()) && empty(s:proving) && !s:StreamRunning()
    call timer_stop(s:retry_timer)
    let s:retry_timer = -1
    call s:Connect()
  elseif s:start_tries <= 0
    call timer_stop(a:timer)
    call s:Warn('the companion did not start within 30 s')
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
  call s:Request('GET', '/terminal', {}, function('s:RunWith', [a:command]))
endfunction

function! s:RunWith(command, status, body) abort
  if a:status == 0
    return s:Warn(s:NoCompanion() . '; :Companion4jStart starts one')
  elseif a:status != 200
    return s:Warn(s:Reason(a:status, a:body))
  endif
  let [env, dropped] = s:TerminalVariables(a:body)
  if type(env) != v:t_dict
    return s:Warn('the companion\'s terminal variables are not a JSON object; nothing was started')
  endif
  if !empty(dropped)
    call s:Warn('ignored terminal variables that are not the IDE\'s: ' . join(dropped, ', '))
  endif
  let options = {'env': env, 'term_name': join(a:command)}
  if s:Option('run_vertical', 0)
    let options.vertical = 1
  endif
  call term_start(a:command, options)
endfunction

function! companion4j#status() abort
  let conn = s:conn
  if empty(conn)
    echo 'companion4j: ' . s:NoCompanion()
          \ . (s:Option('autostart', 0) ? '' : ' (:Companion4jStart starts one)')
    return
  endif
  let lines = ['companion4j: ' . conn.api . (s:connected ? ', following its events' : ', not connected')]
  call add(lines, '  workspace: ' . join(split(conn.workspace, ':'), ', '))
  let labels = sort(values(s:clients))
  call add(lines, '  CLIs: ' . (empty(labels) ? 'none' : join(labels, '; ')))
  let open = map(values(s:proposals), 'v:val.rel . " (" . v:val.clientName . ")"')
  call add(lines, '  proposals: ' . (empty(open) ? 'none' : join(sort(open), ', ')))
  echo join(lines, "\n")
endfunction

" For 'statusline': C4J off, C4J 2 CLIs, C4J 1 CLI · 1 to review.
function! companion4j#statusline() abort
  if !s:connected
    return empty(s:gone) ? 'C4J off' : 'C4J gone'
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
