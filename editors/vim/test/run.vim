" Runs the Test_* functions of one test file, given as Vim's argument, each
" from a fresh plugin state, and exits non-zero when one fails:
"   vim -Nu NONE -es -S editors/vim/test/run.vim editors/vim/test/test_review.vim
" Every failure is written to standard output with its test's name.

" UTF-8 whatever the locale, and wide enough that no message is cut to fit.
set encoding=utf-8 columns=200
let s:root = fnamemodify(expand('<sfile>:p'), ':h:h')
execute 'set runtimepath^=' . fnameescape(s:root)
set nomore shortmess+=F

let s:file = fnamemodify(argv(0), ':p')
silent %argdelete
let s:out = []
try
  execute 'source' fnameescape(s:root . '/test/helpers.vim')
  execute 'source' fnameescape(s:file)
catch
  " A file that does not load would otherwise lose its tests without a word.
  call add(s:out, 'FAILED ' . s:file . ': ' . v:exception . ' at ' . v:throwpoint)
endtry
let s:names = map(filter(split(execute('function /^Test_'), "\n"), 'v:val =~# "function Test_"'),
      \ 'matchstr(v:val, "Test_\\w\\+")')
if empty(s:names)
  call add(s:out, 'FAILED ' . s:file . ': no Test_ function')
endif
let s:failed = !empty(s:out)
for s:name in sort(s:names)
  let v:errors = []
  try
    " A fresh state: no link to attach, no options, the plugin's script
    " sourced again, one window, no timers.
    call timer_stopall()
    silent! tabonly!
    silent! only!
    enew!
    silent! %bwipeout!
    messages clear
    let g:sent = []
    call companion4j#attach#stop()
    for s:option in filter(keys(g:), 'v:val =~# "^companion4j_"')
      execute 'unlet g:' . s:option
    endfor
    runtime autoload/companion4j.vim
    call call(s:name, [])
  catch
    call add(v:errors, v:exception . ' at ' . v:throwpoint)
  endtry
  if empty(v:errors)
    call add(s:out, 'ok ' . s:name)
  else
    let s:failed = 1
    call add(s:out, 'FAILED ' . s:name)
    call extend(s:out, map(copy(v:errors), '"  " . v:val'))
  endif
endfor
call writefile(s:out, '/dev/stdout', 'a')
execute s:failed ? 'cquit 1' : 'qall!'
