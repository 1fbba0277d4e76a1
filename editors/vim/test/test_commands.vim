" The commands, the status line and what Vim says about its companion.

function! Test_runStartsTheCommandWithOnlyTheIdesVariablesInItsEnvironment() abort
  call Workspace({})
  call Attach({})
  call companion4j#run(['sh', '-c', 'echo "port=$QWEN_CODE_IDE_SERVER_PORT token=$GEMINI_CLI_IDE_AUTH_TOKEN node=$NODE_OPTIONS"'])
  call assert_equal({}, Request('terminal').params)
  call Answer(Request('terminal'), {'QWEN_CODE_IDE_SERVER_PORT': '41233', 'GEMINI_CLI_IDE_AUTH_TOKEN': 'secret-token',
        \ 'NODE_OPTIONS': '--require /tmp/evil.js', 'GEMINI_CLI_IDE_SERVER_PORT': "4\n1"})
  call assert_equal('terminal', &buftype)
  call WaitFor('getline(1) =~# "port="')
  call assert_equal('port=41233 token=secret-token node=', getline(1))
  call assert_match('ignored terminal variables that are not the IDE''s: GEMINI_CLI_IDE_SERVER_PORT, NODE_OPTIONS', Messages())
  call assert_notmatch('secret-token', Messages(), 'no message shows the token')
endfunction

function! Test_theTerminalVariablesKeptAreTheIdesOfTheirForm() abort
  let Keep = Plugin('TerminalVariables')
  call assert_equal([v:null, []], Keep('not an object'))
  call assert_equal([{'QWEN_CODE_IDE_SERVER_PORT': '41233', 'REMOTE_CONTAINERS': 'true', 'QWEN_CODE_IDE_WORKSPACE_PATH': '/a:/b'},
        \ ['GEMINI_CLI_IDE_AUTH_TOKEN', 'LD?PRELOAD', 'QWEN_CODE_IDE_SERVER_PORT2']],
        \ Keep({'QWEN_CODE_IDE_SERVER_PORT': '41233', 'REMOTE_CONTAINERS': 'true', 'QWEN_CODE_IDE_WORKSPACE_PATH': '/a:/b',
        \ 'GEMINI_CLI_IDE_AUTH_TOKEN': "t\r", "LD\nPRELOAD": '/tmp/x.so', 'QWEN_CODE_IDE_SERVER_PORT2': '1'}))
endfunction

function! Test_runWithoutACompanionSaysWhyAndStartsNothing() abort
  call Workspace({})
  call companion4j#run(['sh', '-c', 'true'])
  call assert_match('companion4j: no companion serves .*; :Companion4jStart starts one', Messages())
  call Attach()
  call Receive({'method': 'detached', 'params': {'reason': 'the companion on port 41233 is gone (another process holds its port)'}})
  call companion4j#run(['sh', '-c', 'true'])
  call Answer(Request('terminal'), {}, {'code': 'detached', 'message': 'no companion is attached'})
  call assert_match('the companion on port 41233 is gone (another process holds its port); :Companion4jStart starts one', Messages())
  call assert_equal([], filter(range(1, bufnr('$')), 'getbufvar(v:val, "&buftype") ==# "terminal"'))
endfunction

function! Test_theStatusLineAndStatusCommandFollowTheCompanion() abort
  let dir = Workspace({'a.txt': ['a']})
  call Attach()
  call assert_equal('C4J off', companion4j#statusline())
  call Receive({'method': 'detached', 'params': {'reason': 'no companion serves ' . dir}})
  call assert_equal('C4J off', companion4j#statusline())
  call assert_notmatch('no companion serves', Messages(), 'none at the start: the plugin stays quiet')
  call assert_match('^\ncompanion4j: no companion serves ' . dir . ' (:Companion4jStart starts one)$', execute('call companion4j#status()'))

  call Attach({'workspaceRoots': [dir, '/srv/other'], 'clients': [{'id': 'c1', 'label': 'Qwen Code 0.24.4 (pts/3, pid 1)'}]})
  call assert_equal('C4J 1 CLI', companion4j#statusline())
  call Receive({'method': 'clientConnected', 'params': {'id': 'c2', 'label': 'Gemini CLI 0.61.0 (pts/4, pid 2)'}})
  call assert_equal('C4J 2 CLIs', companion4j#statusline())
  call Receive({'method': 'diffOpened', 'params': Diff('0123456789abcdef', dir . '/a.txt', "b\n")})
  call assert_equal('C4J 2 CLIs · 1 to review', companion4j#statusline())
  call assert_equal(join(['', 'companion4j: the companion on port 41233', '  workspace: ' . dir . ', /srv/other',
        \ '  CLIs: Gemini CLI 0.61.0 (pts/4, pid 2); Qwen Code 0.24.4 (pts/3, pid 1)',
        \ '  proposals: a.txt (Qwen Code 0.24.4 (pts/3, pid 4242))'], "\n"), execute('call companion4j#status()'))
  call Receive({'method': 'clientDisconnected', 'params': {'id': 'c1'}})
  call assert_equal('C4J 1 CLI · 1 to review', companion4j#statusline())

  call Receive({'method': 'detached', 'params': {'reason': 'the companion on port 41233 went away'}})
  call assert_equal('C4J gone', companion4j#statusline())
  call assert_match('companion4j: the companion on port 41233 went away', Messages(), 'said once it went away')
  call assert_equal("\ncompanion4j: the companion on port 41233 went away (:Companion4jStart starts one)", execute('call companion4j#status()'))
endfunction

function! Test_startAsksAttachForACompanionAndSaysWhatCame() abort
  let dir = Workspace({})
  call Attach()
  call Plugin('Handle')('detached', {'reason': 'no companion serves ' . dir})
  call companion4j#start()
  call assert_equal({}, Request('start').params)
  call Answer(Request('start'), {}, {'code': 'failed', 'message': 'the workspace is not a folder'})
  call assert_match('no companion started: the workspace is not a folder', Messages())

  call companion4j#start()
  call Answer(Request('start'), {'port': 41234, 'started': v:true})
  call Receive({'method': 'attached', 'params': {'port': 41234, 'started': v:true, 'state': {'workspaceRoots': [dir]}}})
  call assert_match('started a companion for .* on port 41234', Messages())
  call assert_equal("\ncompanion4j: the companion on port 41234, started by this Vim", split(execute('call companion4j#status()'), '\n  ')[0])
  call companion4j#start()
  call assert_match('a companion already serves .* on port 41234', Messages())
  call assert_equal(2, len(Sent('start')))
endfunction

function! Test_errorsAttachReportsAreShownWhileAttached() abort
  call Workspace({})
  call Attach({})
  call Receive({'method': 'error', 'params': {'message': 'event refused: no such file /x', 'method': 'event'}})
  call assert_match('companion4j: event refused: no such file /x', Messages())
  call Receive({'method': 'detached', 'params': {'reason': 'the companion went away'}})
  messages clear
  call Receive({'method': 'error', 'params': {'message': 'event refused: no companion is attached', 'method': 'event'}})
  call assert_notmatch('event refused', Messages())
  call companion4j#attach#receive('not json')
  call assert_match('companion4j attach wrote a line that is not a JSON object', Messages())
endfunction

function! Test_runRefusesTerminalVariablesThatAreNoObject() abort
  call Workspace({})
  call Attach({})
  call companion4j#run(['sh', '-c', 'true'])
  call Answer(Request('terminal'), ['QWEN_CODE_IDE_SERVER_PORT=1'])
  call assert_match('the companion''s terminal variables are not a JSON object; nothing was started', Messages())
  call assert_equal([], filter(range(1, bufnr('$')), 'getbufvar(v:val, "&buftype") ==# "terminal"'))
endfunction
