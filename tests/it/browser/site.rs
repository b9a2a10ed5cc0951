//! What the dashboard's flows share: a root with one agent, a person's key
//! and an agent's, the real `memdir serve`, and the steps a person takes in
//! the browser (log in, open a row's action, submit a form).

use super::Page;
use crate::http::{Server, make_key, serve};
use crate::util::Sandbox;

/// The agent every flow looks at.
pub(crate) const O: &str = "agt_o";

/// A root, its server and the keys of a person and of the agent [`O`].
pub(crate) struct Site {
    pub(crate) s: Sandbox,
    pub(crate) server: Server,
    pub(crate) person: String,
    pub(crate) agent: String,
}

impl Site {
    /// A root where [`O`] saved `facts` (with `memdir add`), and its server.
    pub(crate) fn with(facts: &[&str]) -> Site {
        let s = Sandbox::new();
        for f in facts {
            s.run_as(O, &["add", f]).ok();
        }
        let person = make_key(&s, &["--person", "ann"]);
        let agent = make_key(&s, &["--owner", O]);
        let server = serve(&s, &["--review-every", "0"]);
        Site {
            s,
            server,
            person,
            agent,
        }
    }

    /// The id `memdir list --all` gives the entry whose text is `text`.
    pub(crate) fn id_of(&self, text: &str) -> String {
        let v = self.s.json_ok(&["--owner", O, "list", "--all"]);
        let rows = v["rows"].as_array().expect("rows");
        let row = rows
            .iter()
            .find(|r| r["text"] == text)
            .unwrap_or_else(|| panic!("no row {text}: {v}"));
        row["id"].as_str().expect("an id").to_owned()
    }

    /// A one-time login link for the person `ann` (`memdir --person ann
    /// ui`): its path.
    pub(crate) fn login_link(&self) -> String {
        crate::ui::login_link(&self.s, &self.server)
    }

    /// What `memdir snapshot` shows the agent now.
    pub(crate) fn snapshot(&self) -> String {
        self.s.run_as(O, &["snapshot"]).ok().text()
    }
}

impl Page {
    /// Types `key` into the login form and submits it.
    pub(crate) async fn login(&self, key: &str) {
        self.goto("/ui/login").await;
        self.fill("#login input[name=key]", key).await;
        self.click("#login button[type=submit]").await;
    }

    /// Logs in with a person's key and waits for the agents page.
    pub(crate) async fn log_in_as_person(&self, key: &str) {
        self.login(key).await;
        self.find("table.agents").await;
        assert_eq!(self.path().await, "/ui/");
    }

    /// The row of the entry `id` on an agent's page, in state `state`
    /// (waiting for it at most [`super::WAIT`]).
    pub(crate) async fn row_in(&self, id: &str, state: &str) {
        self.find(&format!("tr#fact-{id}[data-state={state}]"))
            .await;
    }

    /// Opens the `<details>` that holds the row's `action` form, if the
    /// form is in one.
    pub(crate) async fn open_action(&self, id: &str, action: &str) {
        let summary = format!("tr#fact-{id} details:has(form[data-action={action}]) > summary");
        if self.has(&summary).await {
            self.click(&summary).await;
        }
    }

    /// Clicks the submit button of the row's `action` form.
    pub(crate) async fn submit_action(&self, id: &str, action: &str) {
        self.click(&format!(
            "tr#fact-{id} form[data-action={action}] button[type=submit]"
        ))
        .await;
    }

    /// The error code the page's alert shows, waiting for the alert.
    pub(crate) async fn alert_code(&self) -> String {
        self.attr("div.error[role=alert]", "data-code")
            .await
            .unwrap_or_default()
    }

    /// The text of `css` on `path`, loaded in a new tab that is closed
    /// after; the current page stays as it was.
    pub(crate) async fn in_new_tab(&self, path: &str, css: &str) -> String {
        let c = self.client();
        let here = super::bounded("the current window", c.window()).await;
        let tab = super::bounded("open a tab", c.new_window(true)).await;
        super::bounded("switch to the tab", c.switch_to_window(tab.handle)).await;
        self.goto(path).await;
        let text = self.text(css).await;
        super::bounded("close the tab", c.close_window()).await;
        super::bounded("switch back", c.switch_to_window(here)).await;
        text
    }
}
