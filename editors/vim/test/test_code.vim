" Questions about code: Vim has no language tools the companion can ask, so it
" refuses each one at once, naming why, and never leaves one unanswered.

function! Test_everyQuestionAboutCodeIsRefusedAtOnceNamingWhy() abort
  call Attach({})
  for kind in ['definition', 'references', 'rename']
    let id = printf('%016x', len(g:sent) + 10)
    call Receive({'method': 'codeQuery', 'params': {'id': id, 'kind': kind,
          \ 'path': getcwd() . '/Main.java', 'line': 1, 'column': 1}})
    let answer = Request('codeAnswer')
    call assert_equal(id, answer.params.id)
    call assert_equal(['error', 'id'], sort(keys(answer.params)))
    call assert_match('^Vim has no language-server client the companion can ask', answer.params.error)
    " Another editor answered first: no news for the user.
    call Answer(answer, {}, {'code': 'unknownQuery', 'message': 'query ' . id . ' is no longer pending'})
  endfor
  call assert_equal(3, len(Sent('codeAnswer')))
  call assert_notmatch('unknownQuery\|no longer pending', Messages())
endfunction

function! Test_aQueryWhoseIdIsNotOfItsFormIsNotAnswered() abort
  call Attach({})
  for id in ['0123', '0123456789ABCDEF', 7, "0123456789abcdef\n"]
    call Receive({'method': 'codeQuery', 'params': {'id': id, 'kind': 'definition'}})
  endfor
  call assert_equal([], Sent('codeAnswer'))
endfunction
