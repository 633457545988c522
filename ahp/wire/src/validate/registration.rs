//! The registration rules beyond the schema: unique backend ids, one
//! subscription per backend, event and mode, and https for remote
//! endpoints (plain http on loopback or a host the caller allows).

use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr};

use serde_json::Value;

use super::{Finding, Rule};

pub(super) fn registration_rules(value: &Value, local_http_hosts: &[String]) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(hooks) = value.get("hooks").and_then(Value::as_array) else {
        return out;
    };
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for (i, backend) in hooks.iter().enumerate() {
        // Spec 19.2: "Unique reverse-DNS backend identifier within the
        // document" (also the upstream checker's rule).
        if let Some(id) = backend.get("id").and_then(Value::as_str) {
            if let Some(first) = ids.get(id) {
                out.push(Finding::new(
                    Rule::UniqueBackendId,
                    format!("/hooks/{i}/id"),
                    format!("backend id {id:?} is already used by /hooks/{first}"),
                ));
            } else {
                ids.insert(id, i);
            }
        }
        out.extend(duplicate_subscriptions(i, backend));
        if let Some(url) = backend.pointer("/transport/url").and_then(Value::as_str) {
            if backend.pointer("/transport/type").and_then(Value::as_str) == Some("http") {
                out.extend(url_rules(
                    &format!("/hooks/{i}/transport/url"),
                    url,
                    local_http_hosts,
                ));
            }
        }
    }
    out
}

/// Spec 13.3: "A registration document MUST NOT configure the same backend
/// more than once for the same event and mode." The same event under the
/// other mode is a different subscription; a repeat inside one `events`
/// array is the schema's `uniqueItems`.
fn duplicate_subscriptions(i: usize, backend: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(subs) = backend.get("subscriptions").and_then(Value::as_array) else {
        return out;
    };
    let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
    for (j, sub) in subs.iter().enumerate() {
        let Some(mode) = sub.get("mode").and_then(Value::as_str) else {
            continue;
        };
        let Some(events) = sub.get("events").and_then(Value::as_array) else {
            continue;
        };
        for (k, event) in events.iter().enumerate() {
            let Some(event) = event.as_str() else {
                continue;
            };
            match seen.get(&(event, mode)) {
                Some(first) if *first != j => out.push(Finding::new(
                    Rule::DuplicateSubscription,
                    format!("/hooks/{i}/subscriptions/{j}/events/{k}"),
                    format!(
                        "this backend already subscribes to {event:?} in mode {mode:?} at \
                         /hooks/{i}/subscriptions/{first}"
                    ),
                )),
                Some(_) => {}
                None => {
                    seen.insert((event, mode), j);
                }
            }
        }
    }
    out
}

/// The parts of an http(s) URL the rules need.
struct UrlParts<'a> {
    scheme: &'a str,
    userinfo: Option<&'a str>,
    host: &'a str,
}

/// Split `scheme://[userinfo@]host[:port][/...]` (RFC 3986 authority).
/// `None` when the text has no `://`.
fn url_parts(url: &str) -> Option<UrlParts<'_>> {
    let (scheme, rest) = url.split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let (userinfo, hostport) = match authority.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, authority),
    };
    let host = if let Some(v6) = hostport.strip_prefix('[') {
        v6.split_once(']').map_or(v6, |(h, _)| h)
    } else {
        hostport.split_once(':').map_or(hostport, |(h, _)| h)
    };
    Some(UrlParts {
        scheme,
        userinfo,
        host,
    })
}

/// Whether `host` is a loopback name or address: `localhost` and its
/// subdomains (RFC 6761), 127.0.0.0/8, ::1 (and ::ffff:127.x).
fn is_loopback(host: &str) -> bool {
    let lower = host.to_ascii_lowercase();
    let lower = lower.trim_end_matches('.');
    if lower == "localhost" || lower.ends_with(".localhost") {
        return true;
    }
    if let Ok(v4) = lower.parse::<Ipv4Addr>() {
        return v4.is_loopback();
    }
    if let Ok(v6) = lower.parse::<Ipv6Addr>() {
        return v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback());
    }
    false
}

fn url_rules(pointer: &str, url: &str, local_http_hosts: &[String]) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(parts) = url_parts(url) else {
        // Not `scheme://...`: the schema's pattern already reports it.
        return out;
    };
    if parts.host.is_empty() {
        out.push(Finding::new(
            Rule::AbsoluteUrl,
            pointer,
            "the endpoint URL has no host",
        ));
    }
    // Spec 18.3: the literal token must not appear in the document; a
    // password in the URL's userinfo is one.
    if parts.userinfo.is_some_and(|u| u.contains(':')) {
        out.push(Finding::new(
            Rule::NoLiteralCredential,
            pointer,
            "the endpoint URL carries a password in its userinfo; use bearer authentication \
             with \"tokenEnv\" instead",
        ));
    }
    let local = local_http_hosts
        .iter()
        .any(|h| h.eq_ignore_ascii_case(parts.host));
    if parts.scheme.eq_ignore_ascii_case("http")
        && !parts.host.is_empty()
        && !is_loopback(parts.host)
        && !local
    {
        out.push(Finding::new(
            Rule::HttpsForRemote,
            pointer,
            format!(
                "plain http to the non-loopback host {:?}: remote endpoints must use https \
                 (plain http only for loopback or an explicitly controlled local development \
                 host)",
                parts.host
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for h in [
            "localhost",
            "LOCALHOST",
            "a.localhost",
            "127.0.0.1",
            "127.9.9.9",
            "::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_loopback(h), "{h}");
        }
        for h in [
            "example.com",
            "10.0.0.1",
            "::2",
            "localhost.example.com",
            "128.0.0.1",
        ] {
            assert!(!is_loopback(h), "{h}");
        }
    }

    #[test]
    fn url_parts_find_the_host_behind_userinfo_and_port() {
        let p = url_parts("http://u:p@[::1]:8080/x").unwrap();
        assert_eq!((p.scheme, p.userinfo, p.host), ("http", Some("u:p"), "::1"));
        let p = url_parts("https://h.example:1/a@b").unwrap();
        assert_eq!((p.userinfo, p.host), (None, "h.example"));
    }
}
