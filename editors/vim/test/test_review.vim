" Proposals: opened as a diff tab, answered by writing or closing them, closed
" when they end elsewhere.

let s:ID = '0123456789abcdef'
let s:OTHER = 'fedcba9876543210'

function! s:Proposed(files) abort
  let dir = Workspace(a:files)
  edit notes.txt
  call Attach({})
  let g:sent = []
  return dir
endfunction

function! Test_aProposalOpensBesideItsFileAndWritingItAcceptsItWithTheUsersEdits() abort
  let dir = s:Proposed({'notes.txt': ['alpha', 'beta'], 'src/Greeter.java': ['class Greeter {}']})
  call Receive({'method': 'diffOpened', 'params': Diff(s:ID, dir . '/src/Greeter.java', "class Greeter {\n}\n")})
  call assert_equal(2, tabpagenr('$'))
  call assert_equal('companion://' . s:ID . '/src/Greeter.java', bufname('%'))
  call assert_equal(['acwrite', 1, 2], [&buftype, &diff, winnr('$')])
  call assert_equal(['class Greeter {', '}'], getline(1, '$'))
  call assert_match('proposed src/Greeter.java · :w accepts, :q rejects', &l:statusline)
  call assert_match('Qwen Code 0.24.4 (pts/3, pid 4242) proposes an edit to src/Greeter.java: :w accepts, :q rejects', Messages())
  call assert_equal([{'id': s:ID, 'filePath': dir . '/src/Greeter.java', 'bufnr': bufnr('%')}], companion4j#proposals())
  call assert_equal('C4J 0 CLIs · 1 to review', companion4j#statusline())
  wincmd h
  call assert_equal([dir . '/src/Greeter.java', 1], [expand('%:p'), &diff])
  call assert_equal([], Events('focus'), 'the windows of a review are not reported')
  wincmd l

  call append(1, '  // greets')
  write
  call assert_equal({'diff': s:ID, 'content': "class Greeter {\n  // greets\n}\n"}, Request('accept').params)
  call assert_equal(2, tabpagenr('$'), 'open until attach answers')
  call Answer(Request('accept'), {})
  call assert_equal(1, tabpagenr('$'))
  call assert_equal([], companion4j#proposals())
  call assert_match('accepted: Qwen Code 0.24.4 writes src/Greeter.java', Messages())
  call assert_equal(['class Greeter {}'], readfile(dir . '/src/Greeter.java'), 'the CLI writes the file, not Vim')
  call assert_equal(dir . '/notes.txt', expand('%:p'), 'back where the user was')
endfunction

function! Test_closingAProposalRejectsIt() abort
  let dir = s:Proposed({'notes.txt': ['alpha']})
  call Receive({'method': 'diffOpened', 'params': Diff(s:ID, dir . '/notes.txt', "alpha\nbeta\n")})
  quit
  call assert_equal({'diff': s:ID}, Request('reject').params)
  call WaitFor('tabpagenr("$") == 1')
  call Answer(Request('reject'), {})
  call assert_match('rejected the edit to notes.txt', Messages())
  call assert_equal([], companion4j#proposals())
  call assert_equal(1, len(Sent('reject')), 'answered once')
endfunction

function! Test_rejectAndAcceptCommandsAnswerFromEitherWindowOfTheTab() abort
  let dir = s:Proposed({'notes.txt': ['alpha']})
  call Receive({'method': 'diffOpened', 'params': Diff(s:ID, dir . '/notes.txt', "alpha\nbeta\n")})
  wincmd h
  call companion4j#accept()
  call assert_equal({'diff': s:ID, 'content': "alpha\nbeta\n"}, Request('accept').params)
  call Answer(Request('accept'), {})
  call Receive({'method': 'diffOpened', 'params': Diff(s:OTHER, dir . '/notes.txt', "gamma\n")})
  wincmd h
  call companion4j#reject()
  call assert_equal({'diff': s:OTHER}, Request('reject').params)
  call companion4j#reject()
  call assert_equal(1, len(Sent('reject')), 'an answer under way is not sent twice')
  tabfirst
  call companion4j#reject()
  call assert_match('no proposal here: answer in the tab of a proposal', Messages())
endfunction

function! Test_anAnswerThatReachedNoCliKeepsTheProposalOpenForAnotherTry() abort
  let dir = s:Proposed({'notes.txt': ['alpha']})
  call Receive({'method': 'diffOpened', 'params': Diff(s:ID, dir . '/notes.txt', "alpha\nbeta\n")})
  write
  call Answer(Request('accept'), {}, {'code': 'detached', 'message': 'no companion is attached'})
  call assert_equal([2, 1], [tabpagenr('$'), &modified])
  call assert_match('the companion did not answer; the proposal is still open', Messages())
  write
  call Answer(Request('accept'), {}, {'code': 'failed', 'message': 'the companion refused: 400 content is not a string'})
  call assert_equal(2, tabpagenr('$'))
  call assert_match('the companion refused: 400 content is not a string; the proposal is still open', Messages())
  write
  call assert_equal(3, len(Sent('accept')))
  call Answer(Request('accept'), {})
  call assert_equal(1, tabpagenr('$'))
endfunction

function! Test_anAnswerToAProposalThatEndedMeanwhileClosesItWithTheReason() abort
  let dir = s:Proposed({'notes.txt': ['alpha']})
  call Receive({'method': 'diffOpened', 'params': Diff(s:ID, dir . '/notes.txt', "alpha\nbeta\n")})
  write
  call Answer(Request('accept'), {}, {'code': 'ended', 'outcome': 'replaced',
        \ 'message': 'diff 0123456789abcdef is no longer pending: it was replaced by a newer proposal'})
  call assert_equal([1, []], [tabpagenr('$'), companion4j#proposals()])
  call assert_match('diff 0123456789abcdef is no longer pending: it was replaced by a newer proposal', Messages())
endfunction

function! Test_aProposalThatEndsElsewhereClosesItsTabAndSaysWhy() abort
  let dir = s:Proposed({'notes.txt': ['alpha']})
  for [outcome, why] in [['closedByClient', 'withdrawn by the CLI'], ['replaced', 'replaced by a newer proposal'],
        \ ['clientGone', 'its CLI left'], ['stopped', 'the companion stopped']]
    call Receive({'method': 'diffOpened', 'params': Diff(s:ID, dir . '/notes.txt', "alpha\nbeta\n")})
    call assert_equal(2, tabpagenr('$'))
    call Receive({'method': 'diffClosed', 'params': {'id': s:ID, 'filePath': dir . '/notes.txt', 'outcome': outcome}})
    call assert_equal([1, []], [tabpagenr('$'), companion4j#proposals()])
    call assert_match('the proposal for notes.txt was closed: ' . why, Messages())
  endfor
  call assert_equal([], Sent('reject'), 'closing it did not answer it')
endfunction

function! Test_onAttachPendingProposalsOpenAndOnesNoLongerPendingClose() abort
  let dir = s:Proposed({'notes.txt': ['alpha'], 'b.txt': ['b']})
  call Receive({'method': 'diffOpened', 'params': Diff(s:ID, dir . '/notes.txt', "alpha\nbeta\n")})
  call Receive({'method': 'detached', 'params': {'reason': 'the companion went away'}})
  call assert_equal(2, tabpagenr('$'), 'a proposal stays while its companion is away')
  call Attach({'pendingDiffs': [Diff(s:OTHER, dir . '/b.txt', "b\nc\n")]})
  call assert_equal([s:OTHER], map(companion4j#proposals(), 'v:val.id'))
  call assert_equal(2, tabpagenr('$'))
  call assert_match('the proposal for notes.txt is no longer pending', Messages())
  " Attached again with the same proposal pending: it stays open, once.
  call Attach({'pendingDiffs': [Diff(s:OTHER, dir . '/b.txt', "b\nc\n")]})
  call assert_equal(2, tabpagenr('$'))
endfunction

function! Test_aNewFileIsProposedBesideAnEmptyScratchBufferWithOrWithoutFiletypes() abort
  let dir = s:Proposed({'notes.txt': ['alpha']})
  call Receive({'method': 'diffOpened', 'params': Diff(s:ID, dir . '/src/New.java', "class New {}\n", {'change': 'new'})})
  call assert_equal([2, 2, ['class New {}']], [tabpagenr('$'), winnr('$'), getline(1, '$')])
  wincmd h
  call assert_equal(['src/New.java (new file)', 'nofile', 0], [bufname('%'), &buftype, &modifiable])
  call Receive({'method': 'diffClosed', 'params': {'id': s:ID, 'filePath': dir . '/src/New.java', 'outcome': 'rejected'}})

  filetype on
  call Receive({'method': 'diffOpened', 'params': Diff(s:OTHER, dir . '/src/New.java', "class New {}\n", {'change': 'new'})})
  call assert_equal('java', &filetype, "the proposal has the file's type")
  wincmd h
  call assert_equal('java', &filetype)
endfunction

function! Test_lineEndsAndAMissingFinalNewlineSurviveTheReview() abort
  let dir = s:Proposed({'notes.txt': ['alpha']})
  call Receive({'method': 'diffOpened', 'params': Diff(s:ID, dir . '/notes.txt', "one\r\ntwo\r\n")})
  call assert_equal(['one', 'two'], getline(1, '$'))
  write
  call assert_equal("one\r\ntwo\r\n", Request('accept').params.content)
  call Answer(Request('accept'), {})
  call Receive({'method': 'diffOpened', 'params': Diff(s:OTHER, dir . '/notes.txt', "no newline")})
  write
  call assert_equal('no newline', Request('accept').params.content)
endfunction

function! Test_idsAndPathsNotOfTheirFormAreRefused() abort
  let dir = s:Proposed({'notes.txt': ['alpha']})
  let pwned = dir . '/pwned'
  call Receive({'method': 'diffOpened', 'params': Diff(s:ID . "\nurl = http://127.0.0.1:1/", dir . '/notes.txt', 'x')})
  call assert_match('refused a proposal whose id is not sixteen hex digits', Messages())
  call Receive({'method': 'diffOpened', 'params': Diff('0123456789ABCDEF', dir . '/notes.txt', 'x')})
  call Receive({'method': 'diffOpened', 'params': Diff(s:ID, dir . "/notes.txt\n!touch " . pwned, 'x')})
  call assert_match('refused a proposal whose file is not an absolute path without control characters', Messages())
  call Receive({'method': 'diffOpened', 'params': Diff(s:ID, 'notes.txt', 'x')})
  call Receive({'method': 'diffOpened', 'params': Diff(s:ID, dir . '/notes.txt', 42)})
  call assert_match('refused a proposal without its text', Messages())
  call Attach({'pendingDiffs': [Diff('../../etc', dir . '/notes.txt', 'x')]})
  call assert_equal([[], 1], [companion4j#proposals(), tabpagenr('$')])
  call Receive({'method': 'openFile', 'params': {'path': dir . "/notes.txt\n!touch " . pwned}})
  call assert_match('refused to open a file that is not an absolute path without control characters', Messages())
  call assert_false(filereadable(pwned))
endfunction

function! Test_theModelOpensAFileAtALineAndCharacterOutsideAnyReview() abort
  let dir = s:Proposed({'notes.txt': ['alpha'], 'docs/guide.txt': ['one', 'twö three', 'four']})
  call Receive({'method': 'diffOpened', 'params': Diff(s:ID, dir . '/notes.txt', "alpha\nbeta\n")})
  call Receive({'method': 'openFile', 'params': {'path': dir . '/docs/guide.txt', 'line': 2, 'character': 5}})
  call assert_equal([dir . '/docs/guide.txt', 2, 't'], [expand('%:p'), line('.'), getline('.')[col('.') - 1]])
  call assert_equal('', gettabvar(tabpagenr(), 'companion4j_review', ''), 'not in the review tab')
  call assert_equal(2, tabpagenr('$'), 'the review stays open')
endfunction
