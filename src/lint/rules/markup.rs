//! PI014: active markup. HTML that runs when the handoff is rendered or pasted into a page —
//! an event-handler attribute in a tag (`<img src=x onerror=…>`, `<svg/onload=…>`), a
//! `javascript:`/`vbscript:`/`data:text/html` URL in a link or attribute, a `<script>`,
//! `<iframe>`, `<object>` or `<embed>` element. Its meaning does not depend on the language of
//! the sentence around it, so it is judged by shape alone: outside code spans and fences it is
//! an error however it is framed ("include this string: …" is how it is smuggled into a
//! reply), inside them it is documentation and nothing.

use super::super::engine::{Caps, Finding, Pattern, Scan};
use super::super::markdown::Context;
use super::super::registry::PI014;
use super::excerpt;

pub(crate) static PATTERNS: &[Pattern] = &[
    // An event-handler attribute inside a tag: the handler names of the HTML, SVG and DOM
    // specifications and browsers' prefixed ones, by prefix (`onmouse` covers
    // `onmouseover`, `onload` `onloadstart`, `onbefore` `onbeforeinput`). The regex reads
    // the same names as the keywords: an attribute no browser runs (`onaaa=`) is no handler.
    Pattern {
        rule: &PI014,
        keywords: &[
            "onerror",
            "onload",
            "onunload",
            "onclick",
            "ondblclick",
            "onauxclick",
            "oncontextmenu",
            "onmouse",
            "onpointer",
            "ontouch",
            "onfocus",
            "onblur",
            "onkey",
            "oninput",
            "oninvalid",
            "onchange",
            "onsubmit",
            "onreset",
            "onselect",
            "onsearch",
            "onscroll",
            "onwheel",
            "onresize",
            "ondrag",
            "ondrop",
            "oncopy",
            "oncut",
            "onpaste",
            "onanimation",
            "ontransition",
            "ontoggle",
            "onbegin",
            "onend",
            "onrepeat",
            "onhashchange",
            "onpageshow",
            "onpagehide",
            "onpopstate",
            "onmessage",
            "onplay",
            "onpause",
            "oncanplay",
            "onprogress",
            "ontimeupdate",
            "onshow",
            "onstart",
            "onfinish",
            "onactivate",
            "onafterprint",
            "onformdata",
            "onbefore",
            "onabort",
            "oncancel",
            "onclose",
            "oncommand",
            "oncuechange",
            "ondurationchange",
            "onemptied",
            "onratechange",
            "onseek",
            "onstalled",
            "onsuspend",
            "onvolumechange",
            "onwaiting",
            "onstorage",
            "onoffline",
            "ononline",
            "onlanguagechange",
            "onrejectionhandled",
            "onunhandledrejection",
            "onpagereveal",
            "onpageswap",
            "onfullscreen",
            "onwebkit",
            "onmoz",
            "ongotpointercapture",
            "onlostpointercapture",
            "oncontentvisibility",
            "onsecuritypolicyviolation",
            "onslotchange",
            "onafterscriptexecute",
            "onzoom",
        ],
        regex: r#"<(?P<t>[a-z][a-z0-9:-]{0,30})(?:[\s/][^<>]{0,400}?)?[\s/"'](?P<h>on(?:abort|activate|afterprint|afterscriptexecute|animation|auxclick|before|begin|blur|cancel|canplay|change|click|close|command|contentvisibility|contextmenu|copy|cuechange|cut|dblclick|drag|drop|durationchange|emptied|end|error|finish|focus|formdata|fullscreen|gotpointercapture|hashchange|input|invalid|key|languagechange|load|lostpointercapture|message|mouse|moz|offline|online|pagehide|pagereveal|pageshow|pageswap|paste|pause|play|pointer|popstate|progress|ratechange|rejectionhandled|repeat|reset|resize|scroll|search|securitypolicyviolation|seek|select|show|slotchange|stalled|start|storage|submit|suspend|timeupdate|toggle|touch|transition|unhandledrejection|unload|volumechange|waiting|webkit|wheel|zoom)[a-z]{0,36})\s*="#,
        before: 440,
        after: 8,
        check: check_markup,
        overlap: false,
        gate: None,
        near: &[],
    },
    // A script URL where a renderer follows it: an attribute value or a Markdown link
    // destination.
    Pattern {
        rule: &PI014,
        keywords: &["javascript:", "vbscript:", "livescript:", "data:text/html"],
        regex: r#"(?:\b(?:href|src|action|formaction|xlink:href|data|srcdoc|poster|background)\s*=\s*["']?\s*|\]\(\s*<?\s*)(?P<s>(?:java|vb|live)script:|data:text/html)"#,
        before: 40,
        after: 4,
        check: check_markup,
        overlap: false,
        gate: None,
        near: &[],
    },
    // Elements that run code or load a page of their own.
    Pattern {
        rule: &PI014,
        keywords: &["<script", "<iframe", "<object", "<embed", "<frame"],
        // `<object>`, `<embed>` and `<frame>` with what they load (`List<Object>` in prose is
        // a type).
        regex: r"<(?P<t>script|iframe)[\s/>]|<(?P<l>object|embed|frame)\s[^<>]{0,200}?\b(?:data|src)\s*=",
        before: 0,
        after: 220,
        check: check_markup,
        overlap: false,
        gate: None,
        near: &[],
    },
];

/// An error unless the markup is inside code (a span, a fence) or an HTML comment (never
/// rendered; hidden text there is HID007's).
fn check_markup(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.whole();
    if matches!(
        scan.context(s),
        Context::CodeSpan | Context::CodeFence | Context::HtmlComment
    ) {
        return;
    }
    out.push(Finding::new(
        &PI014,
        s,
        e,
        format!(
            "active markup that runs when rendered: {}",
            excerpt(&scan.text()[s..e])
        ),
    ));
}
