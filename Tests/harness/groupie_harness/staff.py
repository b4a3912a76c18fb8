"""Accounts of the staff console: made with `groupie staff add`, signed in through the form as a
browser does."""
import re
import subprocess

from . import REPO
from .checks import Failure


def add_staff(binary, data, email, password, role="admin", venue=None, missions=None, database=None):
    """`groupie staff add` on the data folder `data` (the password on standard input), its venue
    checked against the files of `missions` (the server's; the repository's sample venues unless
    given), into the PostgreSQL `database` when given; returns what it printed, raises Failure
    when it fails."""
    command = [str(binary), "staff", "add", email, "--role", role, *(["--venue", venue] if venue else []), "--data", str(data),
               "--missions", str(missions or REPO / "missions"), *(["--database", database] if database else [])]
    added = subprocess.run(command, input=password + "\n", capture_output=True, text=True, timeout=60)
    if added.returncode != 0:
        raise Failure(f"groupie staff add: {added.stderr.strip()}")
    return added.stdout


def form_token(html):
    """The form token (csrf) of a staff page."""
    found = re.search(r'name="csrf" value="([^"]+)"', html if isinstance(html, str) else html.decode(errors="replace"))
    if not found:
        raise Failure("staff sign-in: no form token on the page")
    return found.group(1)


def cookie_named(headers, name):
    for header in headers.get_all("Set-Cookie") or []:
        key, _, rest = header.partition("=")
        if key.strip() == name:
            return rest.split(";")[0]
    raise Failure(f"staff sign-in: no {name} cookie in {headers.get_all('Set-Cookie')}")


def login_form(api):
    """The sign-in form: (its cookie, as a Cookie header's value, and its form token)."""
    answer = api.request("GET", "/staff/login", expect=(200,))
    return "groupie_staff_login=" + cookie_named(answer.headers, "groupie_staff_login"), form_token(answer.body)


def sign_in(api, email, password):
    """Signs in through the form: (the session's Cookie header value, the session's form token)."""
    cookie, csrf = login_form(api)
    answer = api.request("POST", "/staff/login", form={"csrf": csrf, "email": email, "password": password},
                         headers={"Cookie": cookie}, expect=None)
    if answer.status != 303:
        raise Failure(f"staff sign-in answered {answer.status}")
    session = "groupie_staff=" + cookie_named(answer.headers, "groupie_staff")
    page = api.request("GET", "/staff", headers={"Cookie": session}, expect=None)
    if page.status != 200:
        raise Failure(f"GET /staff with the session answered {page.status}")
    return session, form_token(page.body)


def add_account(api, session, csrf, email, password, role="viewer", venues=()):
    """An account added through the console's form by a signed-in admin (`session`, `csrf` as
    `sign_in` returns them); returns its id."""
    form = [("csrf", csrf), ("email", email), ("password", password), ("role", role), *(("venue[]", v) for v in venues)]
    api.request("POST", "/staff/accounts", form=form, headers={"Cookie": session}, expect=(303,))
    return account_id(api, session, email)


def account_id(api, session, email):
    """The id of the account `email`, from the accounts page (an admin's `session`)."""
    page = api.request("GET", "/staff/accounts", headers={"Cookie": session}, expect=(200,)).body.decode(errors="replace")
    found = re.search(r"<h3>" + re.escape(email) + r"</h3>.*?action=\"/staff/accounts/([^/\"]+)/", page, re.S)
    if not found:
        raise Failure(f"the accounts page lists no {email}")
    return found.group(1)
