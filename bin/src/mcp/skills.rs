//! The `learn` tool: learned skills (learn, list, show, forget), through
//! `api::execute` as the command line's `skill` commands; a failure answers
//! with the error (worded for this tool) and the current skills.

use memdir::api::errors::Surface;
use memdir::api::types::{SkillChange, Store};
use memdir::api::{self, Request, Response, Who, render};
use rmcp::model::CallToolResult;

use super::args::LearnCall;
use super::{answer, rendered};

/// One call of the `learn` tool, on a store opened for it.
pub fn learn_action(store: &Store, who: &Who, call: LearnCall) -> CallToolResult {
    let request = match call {
        LearnCall::List => Request::SkillList,
        LearnCall::Forget { name } => Request::SkillForget { name },
        LearnCall::Show { name } => Request::SkillShow { name },
        LearnCall::Learn {
            name,
            content,
            description,
            replace,
        } => Request::SkillLearn {
            name,
            source: content,
            description,
            replace,
        },
    };
    match api::execute(store, who, request) {
        Ok(r) if matches!(&*r, Response::Skill(o) if o.message != SkillChange::Forgot) => {
            answer(api::guard::AgentText::from_guarded(&r, learned), false)
        }
        Ok(r) => answer(rendered(&r), false),
        Err(e) => {
            let mut text = render::error_text(&e, Surface::Mcp);
            if let Ok(r) = api::execute(store, who, Request::SkillList) {
                text.push(&api::guard::AgentText::program("Your skills:\n"));
                text.push(&rendered(&r));
            }
            answer(text, true)
        }
    }
}

/// The sentence a skill learned answers with.
fn learned(r: &Response) -> String {
    let Response::Skill(o) = r else {
        return String::new();
    };
    {
        let mut text = match o.message {
            SkillChange::AlreadyStored => {
                format!("Skill {} is already stored ({}).\n", o.name, o.path)
            }
            m => format!(
                "{} skill {} ({}, {} bytes); a run injects it with `run begin --skill {}`.\n",
                if m == SkillChange::Replaced {
                    "Replaced"
                } else {
                    "Saved"
                },
                o.name,
                o.path,
                o.bytes.unwrap_or(0),
                o.name
            ),
        };
        for w in &o.warnings {
            text.push_str(&format!("warning: {w}\n"));
        }
        text
    }
}
