// The diff of one pending edit: side by side on wide windows, unified on
// narrow ones, with the proposed side editable in both.
import { MergeView, unifiedMergeView, goToNextChunk, goToPreviousChunk } from '@codemirror/merge';
import { EditorView, keymap, lineNumbers, highlightActiveLine, drawSelection } from '@codemirror/view';
import { Compartment, EditorState } from '@codemirror/state';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { syntaxHighlighting, defaultHighlightStyle, bracketMatching } from '@codemirror/language';
import { searchKeymap, highlightSelectionMatches } from '@codemirror/search';
import { oneDarkHighlightStyle } from '@codemirror/theme-one-dark';
import { languageFor } from './languages.js';

const chunkKeys = keymap.of([
  { key: 'F7', run: goToNextChunk },
  { key: 'Shift-F7', run: goToPreviousChunk },
]);

// CodeMirror's own style sheet is a <style> element: the page's policy admits it by this nonce,
// which the companion draws and puts on the page's script tag.
const styleNonce = EditorView.cspNonce.of(document.querySelector('script[nonce]')?.nonce ?? '');

function baseExtensions(editable) {
  return [
    styleNonce,
    lineNumbers(),
    drawSelection(),
    highlightActiveLine(),
    bracketMatching(),
    highlightSelectionMatches(),
    history(),
    EditorView.lineWrapping,
    EditorState.readOnly.of(!editable),
    EditorView.editable.of(editable),
    EditorView.contentAttributes.of({ 'aria-label': editable ? 'Proposed text' : 'Current text' }),
    chunkKeys,
    keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap]),
  ];
}

function themeExtensions(dark) {
  return [
    EditorView.theme({}, { dark }),
    syntaxHighlighting(dark ? oneDarkHighlightStyle : defaultHighlightStyle),
  ];
}

export class DiffView {
  #parent;
  #readOnly;
  #view = null;
  #editor = null;
  #dark = false;
  #narrow = false;
  #languageRequest = 0;
  #theme = new Compartment();
  #language = new Compartment();
  #languageExt = [];
  #diff = null;

  /** @param {{readOnly?: boolean}} options readOnly: the proposed side cannot be edited either */
  constructor(parent, { readOnly = false } = {}) {
    this.#parent = parent;
    this.#readOnly = readOnly;
  }

  /** The proposed side as the user left it. */
  get content() {
    return this.#editor ? this.#editor.state.doc.toString() : null;
  }

  /** Whether the user changed the proposed side since it was shown. */
  get edited() {
    return this.#diff !== null && this.content !== this.#diff.newContent;
  }

  show(diff, { dark, narrow }) {
    this.#diff = diff;
    this.#dark = dark;
    this.#narrow = narrow;
    this.#languageExt = [];
    this.#build(diff.newContent);
    const request = ++this.#languageRequest;
    languageFor(diff.filePath).then((lang) => {
      if (request !== this.#languageRequest || !lang) return;
      this.#languageExt = lang;
      this.#reconfigure(this.#language, lang);
    });
  }

  setDark(dark) {
    if (dark === this.#dark) return;
    this.#dark = dark;
    this.#reconfigure(this.#theme, themeExtensions(dark));
  }

  setNarrow(narrow) {
    if (narrow === this.#narrow || !this.#diff) return;
    this.#narrow = narrow;
    this.#build(this.content);
  }

  focus() {
    this.#editor?.focus();
  }

  clear() {
    this.#languageRequest++;
    this.#view?.destroy();
    this.#view = null;
    this.#editor = null;
    this.#diff = null;
  }

  #build(proposed) {
    this.#view?.destroy();
    const original = this.#diff.originalContent;
    const ext = (editable) => [
      ...baseExtensions(editable),
      this.#theme.of(themeExtensions(this.#dark)),
      this.#language.of(this.#languageExt),
    ];
    if (this.#narrow) {
      const editor = new EditorView({
        parent: this.#parent,
        doc: proposed,
        extensions: [
          ext(!this.#readOnly),
          unifiedMergeView({ original, mergeControls: false, collapseUnchanged: { margin: 3, minSize: 6 } }),
        ],
      });
      this.#view = editor;
      this.#editor = editor;
    } else {
      const merge = new MergeView({
        parent: this.#parent,
        a: { doc: original, extensions: ext(false) },
        b: { doc: proposed, extensions: ext(!this.#readOnly) },
        revertControls: this.#readOnly ? undefined : 'a-to-b',
        collapseUnchanged: { margin: 3, minSize: 6 },
      });
      this.#view = merge;
      this.#editor = merge.b;
    }
    this.#parent.dataset.layout = this.#narrow ? 'unified' : 'side-by-side';
  }

  #reconfigure(compartment, extension) {
    const views = this.#view instanceof MergeView ? [this.#view.a, this.#view.b] : this.#view ? [this.#view] : [];
    for (const v of views) v.dispatch({ effects: compartment.reconfigure(extension) });
  }
}
