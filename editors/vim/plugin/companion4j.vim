" companion4j.vim: Vim as the IDE of Qwen Code and Gemini CLI, through
" `companion4j attach` and the companion it finds or starts. See :help companion4j.
if exists('g:loaded_companion4j') || &compatible
  finish
endif
if !has('job') || !has('channel') || !has('timers') || !has('lambda')
  finish
endif
let g:loaded_companion4j = 1

command! -bar Companion4jStart call companion4j#start()
command! -bar Companion4jStatus call companion4j#status()
command! -bar Companion4jReview call companion4j#review()
command! -bar Companion4jAccept call companion4j#accept()
command! -bar Companion4jReject call companion4j#reject()
command! -nargs=+ -complete=shellcmd Companion4jRun call companion4j#run([<f-args>])

augroup companion4j
  autocmd!
  autocmd VimEnter * call companion4j#enable()
  autocmd BufEnter,FocusGained * call companion4j#focus(str2nr(expand('<abuf>')))
  autocmd BufDelete * call companion4j#close(str2nr(expand('<abuf>')))
  autocmd CursorMoved,CursorMovedI * call companion4j#cursor_moved()
  autocmd TextChanged,TextChangedI * call companion4j#text_changed(str2nr(expand('<abuf>')))
  autocmd BufWritePost,BufReadPost * call companion4j#saved(str2nr(expand('<abuf>')))
  if exists('##DirChanged')
    autocmd DirChanged * call companion4j#dir_changed()
  endif
  autocmd VimLeavePre * call companion4j#leaving()
  if exists('##ModeChanged')
    autocmd ModeChanged * call companion4j#cursor_moved()
  endif
augroup END

" Loaded after startup, e.g. with :packadd: attach now.
if v:vim_did_enter
  call companion4j#enable()
endif
