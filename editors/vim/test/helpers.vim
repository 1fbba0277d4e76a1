" What the tests share: a fake attach process that keeps what the plugin
" writes to it (g:sent, decoded) and hands the plugin what attach would write.

" Opens the fake link; with a state, announces a companion that serves it.
function! Attach(...) abort
  call companion4j#attach#open({line -> add(g:sent, json_decode(line))}, Plugin('Handle'))
  if a:0
    call Receive({'method': 'attached', 'params': {'port': 41233, 'started': v:false,
          \ 'state': extend({'workspaceRoots': [getcwd()], 'clients': [], 'pendingDiffs': []}, a:1)}})
  endif
endfunction

" One message from attach, as its line.
function! Receive(message) abort
  call companion4j#attach#receive(json_encode(a:message))
endfunction

" The messages the plugin sent with method, oldest first.
function! Sent(method) abort
  return filter(copy(g:sent), {_, m -> get(m, 'method', '') ==# a:method})
endfunction

" The params of the editor events of type the plugin sent, oldest first.
function! Events(type) abort
  return map(filter(Sent('event'), {_, m -> m.params.type ==# a:type}), {_, m -> m.params})
endfunction

" The newest request of method, failing the test when there is none.
function! Request(method) abort
  let requests = filter(Sent(a:method), {_, m -> has_key(m, 'id')})
  call assert_false(empty(requests), 'no ' . a:method . ' request was sent')
  return empty(requests) ? {'id': -1} : requests[-1]
endfunction

" attach's answer to request: a result, or with an error {code, message}.
function! Answer(request, result, ...) abort
  call Receive(a:0 ? {'id': a:request.id, 'error': a:1} : {'id': a:request.id, 'result': a:result})
endfunction

" The plugin's script-local function name.
function! Plugin(name) abort
  let sid = getscriptinfo({'name': 'autoload/companion4j.vim'})[0].sid
  return function('<SNR>' . sid . '_' . a:name)
endfunction

function! Messages() abort
  return execute('messages')
endfunction

" Waits, at most 3 s, until expr is true (timers run meanwhile); fails the test if it never is.
function! WaitFor(expr) abort
  for _ in range(300)
    if eval(a:expr)
      return
    endif
    sleep 10m
  endfor
  call assert_report('never came true: ' . a:expr)
endfunction

" A fresh folder with files {name: lines}, made the current directory.
function! Workspace(files) abort
  let dir = resolve(tempname())
  call mkdir(dir, 'p')
  for [name, lines] in items(a:files)
    call mkdir(fnamemodify(dir . '/' . name, ':h'), 'p')
    call writefile(lines, dir . '/' . name)
  endfor
  execute 'cd' fnameescape(dir)
  return dir
endfunction

" A pending diff as attach reports it, proposed by Qwen Code.
function! Diff(id, path, newContent, ...) abort
  return extend({'id': a:id, 'filePath': a:path, 'change': 'modified', 'originalContent': '',
        \ 'newContent': a:newContent, 'clientId': 'c1', 'clientName': 'Qwen Code 0.24.4 (pts/3, pid 4242)'},
        \ a:0 ? a:1 : {})
endfunction
