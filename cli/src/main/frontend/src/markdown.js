// The agent's Markdown as DOM for a chat bubble: text, never layout. Raw HTML in a message shows
// as the text it is; what Markdown itself produces passes an allowlist that keeps no element a
// message could use to restyle, cover or imitate the page (style, form, input, button, img, svg,
// ...) and no class, id, style or data attribute, so a message cannot borrow the page's own looks
// (its Accept button is a .btn.primary). Images become links, so nothing is fetched.
import createDOMPurify from 'dompurify';
import { Marked } from 'marked';

const ALLOWED_TAGS = [
  'p', 'br', 'hr', 'em', 'strong', 'del', 's', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'a',
];
const ALLOWED_ATTR = ['href', 'title', 'start'];
/** Links open only on the web or in a mail client: no javascript:, data:, or links into this page. */
const SAFE_URL = /^(?:https?|mailto):/i;

const purify = createDOMPurify(window);
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    // Away from the page under review, and without telling the target where the link was.
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const marked = new Marked({
  async: false,
  gfm: true,
  renderer: {
    html({ text }) {
      return escapeHtml(text);
    },
    image({ href, text }) {
      const label = escapeHtml(`[image: ${text || href}]`);
      return SAFE_URL.test(href) ? `<a href="${escapeHtml(href)}">${label}</a>` : label;
    },
  },
});

/** A sanitized fragment for {@code text}, a message's Markdown. */
export function renderMarkdown(text) {
  return purify.sanitize(marked.parse(text), {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOWED_URI_REGEXP: SAFE_URL,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
}
