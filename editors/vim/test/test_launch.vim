" How the plugin starts `companion4j attach`: for the current directory, with
" --start when asked to, and again for a directory its companion does not serve.

" A stand-in for companion4j that notes its arguments, and that it ended,
" once its standard input ends.
function! s:Companion4j(dir) abort
  let script = a:dir . '/companion4j'
  let log = shellescape(a:dir . '/log')
  call writefile(['#!/bin/sh', 'echo "$*" >> ' . log, 'cat > /dev/null', 'echo "ended $*" >> ' . log], script)
  call setfperm(script, 'rwx------')
  return script
endfunction

function! Test_attachIsStartedForTheDirectoryAndAgainForOneItsCompanionDoesNotServe() abort
  let dir = Workspace({'sub/a.txt': ['a']})
  let other = Workspace({})
  execute 'cd' fnameescape(dir)
  let g:companion4j_command = s:Companion4j(other)
  let g:log = other . '/log'
  call companion4j#enable()
  call WaitFor('filereadable(g:log) && !empty(readfile(g:log))')
  call assert_equal(['attach --workspace ' . dir], readfile(g:log))
  call assert_true(companion4j#attach#running())
  call Receive({'method': 'attached', 'params': {'port': 41233, 'started': v:false, 'state': {'workspaceRoots': [dir]}}})

  cd sub
  call companion4j#dir_changed()
  call assert_equal('C4J 0 CLIs', companion4j#statusline(), 'a folder of the workspace: still attached')
  execute 'cd' fnameescape(other)
  call companion4j#dir_changed()
  call assert_equal('C4J off', companion4j#statusline())
  call WaitFor('len(readfile(g:log)) == 3')
  call assert_equal(['attach --workspace ' . dir, 'attach --workspace ' . other, 'ended attach --workspace ' . dir],
        \ sort(readfile(g:log)), 'the first attach ended when its input did')
endfunction

function! Test_autostartAsksForACompanionAndItsArrivalIsSaid() abort
  let dir = Workspace({})
  let g:companion4j_command = [s:Companion4j(dir)]
  let g:companion4j_autostart = 1
  let g:log = dir . '/log'
  call companion4j#enable()
  call WaitFor('filereadable(g:log) && !empty(readfile(g:log))')
  call assert_equal(['attach --workspace ' . dir . ' --start'], readfile(g:log))
  call assert_notmatch('starting a companion', Messages(), 'one may serve already: nothing to say yet')
  " Its start failed: attach says so, and the plugin tells the user.
  call Receive({'method': 'detached', 'params': {'reason': 'no companion could start: port in use'}})
  call assert_match('companion4j: no companion could start: port in use', Messages())
  call Receive({'method': 'attached', 'params': {'port': 41240, 'started': v:true, 'state': {'workspaceRoots': [dir]}}})
  call assert_match('started a companion for .* on port 41240', Messages())
endfunction

function! Test_withoutCompanion4jThePluginSaysHowToGetIt() abort
  call Workspace({})
  let g:companion4j_command = '/no/such/companion4j'
  call companion4j#enable()
  let why = 'cannot run ''/no/such/companion4j''; put companion4j on PATH or set g:companion4j_command'
  call assert_match('companion4j: ' . why, Messages())
  call assert_equal(["", 'companion4j: ' . why . ' (:Companion4jStart starts one)'], split(execute('call companion4j#status()'), "\n", 1))
  call assert_false(companion4j#attach#running())
endfunction

function! Test_anAttachThatEndsIsSaidWithItsLastWords() abort
  let dir = Workspace({})
  let g:companion4j_command = dir . '/companion4j'
  call writefile(['#!/bin/sh', 'echo "Unknown subcommand ''$1''" >&2', 'exit 2'], g:companion4j_command)
  call setfperm(g:companion4j_command, 'rwx------')
  call companion4j#enable()
  call WaitFor('!companion4j#attach#running()')
  call assert_match('companion4j: companion4j attach ended: Unknown subcommand ''attach''', Messages())
  call assert_equal('C4J off', companion4j#statusline())
endfunction

function! Test_startRunsAttachWithStartWhenNoneRunsAndSaysSo() abort
  let dir = Workspace({})
  let g:companion4j_command = s:Companion4j(dir)
  let g:log = dir . '/log'
  call companion4j#start()
  call assert_match('starting a companion for ', Messages())
  call WaitFor('filereadable(g:log) && !empty(readfile(g:log))')
  call assert_equal(['attach --workspace ' . dir . ' --start'], readfile(g:log))
  " A companion the attach it started found running was not started: nothing more to say.
  call Receive({'method': 'attached', 'params': {'port': 41233, 'started': v:false, 'state': {'workspaceRoots': [dir]}}})
  call assert_notmatch('started a companion', Messages())
  " Its own companion, re-attached after its stream ended, is not started again.
  call Receive({'method': 'detached', 'params': {'reason': 'the companion on port 41233 ended its event stream'}})
  call Receive({'method': 'attached', 'params': {'port': 41233, 'started': v:true, 'state': {'workspaceRoots': [dir]}}})
  call assert_notmatch('started a companion', Messages())
endfunction
