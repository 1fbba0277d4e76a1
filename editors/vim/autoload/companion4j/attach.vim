" companion4j/attach.vim: the plugin's one link to its companion, a
" `companion4j attach` process spoken to in JSON lines on its standard input
" and output (docs/attach.md). Discovery, proofs, the token and the event
" stream are that process's; this file frames messages and pairs answers with
" their requests.
scriptencoding utf-8

let s:save_cpo = &cpoptions
set cpoptions&vim

" Writes one line to attach, or v:null when none runs.
let s:Send = v:null
" Takes attach's notifications: Handle(method, params).
let s:Handle = v:null
" Bumped whenever a link ends, so that a stopped process's late output is ignored.
let s:generation = 0
let s:job = v:null
" Requests waiting for their answer: id -> {Callback, timer}.
let s:waiting = {}
let s:next_id = 0
" The last lines attach wrote to its standard error, to say why it ended.
let s:stderr = []

" An answer that does not come within this many milliseconds fails its
" request, so that nothing waits forever on a process that hangs. Attach
" bounds its own waits (10 s a request, 30 s a start): its answer comes first.
let s:ANSWER_WITHIN = 40000

" Starts argv (`companion4j attach …`) and talks to it; Handle gets its
" notifications. Returns '' when it runs, else why it does not.
function! companion4j#attach#start(argv, Handle) abort
  call companion4j#attach#stop()
  let s:stderr = []
  let generation = s:generation
  if !executable(a:argv[0])
    return 'cannot run ' . string(a:argv[0])
  endif
  try
    " Nothing stops it when Vim exits: its standard input ends then, and it
    " stops the companion it started, as docs/attach.md says.
    let job = job_start(a:argv, {'in_mode': 'raw', 'out_mode': 'nl', 'err_mode': 'nl',
          \ 'out_cb': function('s:Output', [generation]), 'err_cb': function('s:Error', [generation]),
          \ 'close_cb': function('s:Closed', [generation]), 'stoponexit': ''})
  catch
    return 'cannot run ' . string(a:argv[0]) . ': ' . v:exception
  endtry
  if job_status(job) ==# 'fail'
    let s:generation += 1
    return 'cannot run ' . string(a:argv[0])
  endif
  let channel = job_getchannel(job)
  let [s:Send, s:Handle, s:job] = [{line -> ch_sendraw(channel, line)}, a:Handle, job]
  return ''
endfunction

" Talks through Send, a function given each line to write, instead of a
" process of its own; Handle gets the notifications.
function! companion4j#attach#open(Send, Handle) abort
  call companion4j#attach#stop()
  let [s:Send, s:Handle] = [a:Send, a:Handle]
endfunction

function! companion4j#attach#running() abort
  return s:Send isnot v:null
endfunction

" Ends the link: attach's standard input closes, so it exits by itself; every
" request still waiting fails.
function! companion4j#attach#stop() abort
  if s:job isnot v:null && job_status(s:job) ==# 'run'
    silent! call ch_close_in(job_getchannel(s:job))
  endif
  call s:End('companion4j attach was stopped')
endfunction

function! companion4j#attach#notify(method, params) abort
  call s:Write({'method': a:method, 'params': a:params})
endfunction

" Sends a request; Callback(result, error) gets its answer exactly once:
" error is {} on success, else {code, message} (docs/attach.md).
function! companion4j#attach#request(method, params, Callback) abort
  if s:Send is v:null
    return a:Callback({}, {'code': 'detached', 'message': 'companion4j attach is not running'})
  endif
  let s:next_id += 1
  let id = s:next_id
  let s:waiting[id] = {'Callback': a:Callback,
        \ 'timer': timer_start(s:ANSWER_WITHIN, function('s:TimedOut', [id]))}
  call s:Write({'id': id, 'method': a:method, 'params': a:params})
endfunction

" One line from attach: an answer goes to its request, a notification to Handle.
function! companion4j#attach#receive(line) abort
  try
    let message = json_decode(a:line)
  catch
    let message = v:null
  endtry
  if type(message) != v:t_dict
    return s:Notify('error', {'message': 'companion4j attach wrote a line that is not a JSON object'})
  endif
  let id = get(message, 'id', v:null)
  if (type(id) == v:t_number || type(id) == v:t_string) && has_key(s:waiting, id)
        \ && (has_key(message, 'result') || has_key(message, 'error'))
    let error = get(message, 'error', {})
    return s:Answer(id, get(message, 'result', {}), type(error) == v:t_dict ? error : {'code': 'failed'})
  endif
  if type(get(message, 'method')) == v:t_string
    let params = get(message, 'params', {})
    call s:Notify(message.method, type(params) == v:t_dict ? params : {})
  endif
endfunction

function! s:Write(message) abort
  if s:Send is v:null
    return
  endif
  try
    " json_encode escapes every line end inside strings: one message, one line.
    call s:Send(json_encode(a:message) . "\n")
  catch
    call s:End('companion4j attach cannot be written to: ' . v:exception)
  endtry
endfunction

function! s:Notify(method, params) abort
  if s:Handle isnot v:null
    call s:Handle(a:method, a:params)
  endif
endfunction

function! s:Answer(id, result, error) abort
  let waiting = remove(s:waiting, a:id)
  call timer_stop(waiting.timer)
  call waiting.Callback(a:result, a:error)
endfunction

function! s:TimedOut(id, timer) abort
  if has_key(s:waiting, a:id)
    call s:Answer(a:id, {}, {'code': 'failed',
          \ 'message': 'companion4j attach did not answer within ' . s:ANSWER_WITHIN / 1000 . ' s'})
  endif
endfunction

function! s:Output(generation, channel, line) abort
  if a:generation == s:generation
    call companion4j#attach#receive(a:line)
  endif
endfunction

function! s:Error(generation, channel, line) abort
  if a:generation == s:generation && a:line !~# '^\s*$'
    let s:stderr = add(s:stderr, a:line)[max([0, len(s:stderr) - 3]) :]
  endif
endfunction

" Vim calls this once all the output was read: attach ended.
function! s:Closed(generation, channel) abort
  if a:generation == s:generation
    let why = 'companion4j attach ended' . (empty(s:stderr) ? '' : ': ' . s:stderr[-1])
    call s:End(why)
    call s:Notify('detached', {'reason': why})
  endif
endfunction

" Forgets the link and fails what still waits on it.
function! s:End(why) abort
  let s:generation += 1
  let s:Send = v:null
  let s:job = v:null
  for id in keys(s:waiting)
    call s:Answer(id, {}, {'code': 'detached', 'message': a:why})
  endfor
endfunction

let &cpoptions = s:save_cpo
unlet s:save_cpo
