" The link to `companion4j attach`: framing, answers paired with requests,
" and a process that ends.

function! s:Link() abort
  let g:lines = []
  let g:notified = []
  call companion4j#attach#open({line -> add(g:lines, line)}, {method, params -> add(g:notified, [method, params])})
endfunction

function! Test_eachMessageIsOneLineAndAnswersFindTheirRequestsInAnyOrder() abort
  call s:Link()
  let g:answers = []
  call companion4j#attach#request('state', {}, {result, error -> add(g:answers, ['state', result, error])})
  call companion4j#attach#request('accept', {'diff': '0123456789abcdef', 'content': "a\nb\r\n"},
        \ {result, error -> add(g:answers, ['accept', result, error])})
  call companion4j#attach#notify('event', {'type': 'focus', 'path': '/tmp/x'})
  call assert_equal(3, len(g:lines))
  for line in g:lines
    call assert_match('^{[^\n]*}\n$', line)
  endfor
  let [state, accept, event] = map(copy(g:lines), 'json_decode(v:val)')
  call assert_equal({'method': 'accept', 'params': {'diff': '0123456789abcdef', 'content': "a\nb\r\n"}},
        \ filter(copy(accept), 'v:key !=# "id"'))
  call assert_notequal(state.id, accept.id)
  call assert_false(has_key(event, 'id'), 'a notification has no id')

  call companion4j#attach#receive(json_encode({'id': accept.id, 'error': {'code': 'ended', 'message': 'gone'}}))
  call companion4j#attach#receive(json_encode({'id': state.id, 'result': {'clients': []}}))
  call assert_equal([['accept', {}, {'code': 'ended', 'message': 'gone'}], ['state', {'clients': []}, {}]], g:answers)

  " An answer comes once: a second one for the same id is no answer.
  call companion4j#attach#receive(json_encode({'id': state.id, 'result': {'again': 1}}))
  call assert_equal(2, len(g:answers))
  call assert_equal([], g:notified)
endfunction

function! Test_notificationsGoToTheHandlerAndABadLineIsReportedWithoutEndingTheLink() abort
  call s:Link()
  call companion4j#attach#receive('{"method":"clientConnected","params":{"id":"c1","label":"Qwen Code"}}')
  call companion4j#attach#receive('not json')
  call companion4j#attach#receive('[1, 2]')
  call companion4j#attach#receive('{"method":"detached","params":"no object"}')
  call assert_equal([['clientConnected', {'id': 'c1', 'label': 'Qwen Code'}],
        \ ['error', {'message': 'companion4j attach wrote a line that is not a JSON object'}],
        \ ['error', {'message': 'companion4j attach wrote a line that is not a JSON object'}],
        \ ['detached', {}]], g:notified)
  call assert_true(companion4j#attach#running())
endfunction

function! Test_aRequestWithNoAttachRunningFailsAtOnceAsDetached() abort
  let g:answers = []
  call companion4j#attach#request('terminal', {}, {result, error -> add(g:answers, error.code)})
  call assert_equal(['detached'], g:answers)
endfunction

function! Test_stoppingFailsEveryWaitingRequestOnceAndLateAnswersAreIgnored() abort
  call s:Link()
  let g:answers = []
  call companion4j#attach#request('reject', {'diff': '0123456789abcdef'}, {result, error -> add(g:answers, error)})
  let id = json_decode(g:lines[0]).id
  call companion4j#attach#stop()
  call assert_equal([{'code': 'detached', 'message': 'companion4j attach was stopped'}], g:answers)
  call assert_false(companion4j#attach#running())
  call companion4j#attach#receive(json_encode({'id': id, 'result': {}}))
  call assert_equal(1, len(g:answers))
endfunction

function! Test_aProcessIsSpokenToInLinesAndItsEndFailsWhatWaitsWithItsLastWords() abort
  let g:notified = []
  let g:answers = []
  " Reads one request, answers it and announces a companion, then reads
  " another, says why on its standard error and ends without answering.
  let script = 'read -r line; id=$(printf %s "$line" | sed "s/.*\"id\": *\([0-9]*\).*/\1/");'
        \ . ' printf "{\"id\":%s,\"result\":{\"port\":7}}\n" "$id";'
        \ . ' echo "{\"method\":\"attached\",\"params\":{\"port\":7,\"started\":true,\"state\":{}}}";'
        \ . ' read -r line; echo "no companion for you" >&2; exit 2'
  call assert_equal('', companion4j#attach#start(['sh', '-c', script], {method, params -> add(g:notified, [method, params])}))
  call companion4j#attach#request('start', {}, {result, error -> add(g:answers, [result, error])})
  call WaitFor('len(g:answers) == 1 && len(g:notified) == 1')
  call assert_equal([[{'port': 7}, {}]], g:answers)
  call assert_equal([['attached', {'port': 7, 'started': v:true, 'state': {}}]], g:notified)

  call companion4j#attach#request('state', {}, {result, error -> add(g:answers, [result, error])})
  call WaitFor('len(g:answers) == 2 && len(g:notified) == 2')
  let ended = 'companion4j attach ended: no companion for you'
  call assert_equal([{}, {'code': 'detached', 'message': ended}], g:answers[1])
  call assert_equal(['detached', {'reason': ended}], g:notified[1])
  call assert_false(companion4j#attach#running())
endfunction

function! Test_aCommandThatCannotRunSaysSo() abort
  call assert_match('^cannot run ''/no/such/companion4j''', companion4j#attach#start(['/no/such/companion4j', 'attach'], {m, p -> 0}))
  call assert_false(companion4j#attach#running())
endfunction

function! Test_aRequestUnansweredInTimeFailsAndItsLateAnswerIsIgnored() abort
  call s:Link()
  let g:answers = []
  call companion4j#attach#request('state', {}, {result, error -> add(g:answers, error)})
  let id = json_decode(g:lines[0]).id
  " Its timer fires, as it would after 40 s.
  let sid = getscriptinfo({'name': 'autoload/companion4j/attach.vim'})[0].sid
  call function('<SNR>' . sid . '_TimedOut')(id, -1)
  call assert_equal([{'code': 'failed', 'message': 'companion4j attach did not answer within 40 s'}], g:answers)
  call companion4j#attach#receive(json_encode({'id': id, 'result': {}}))
  call assert_equal(1, len(g:answers))
endfunction
