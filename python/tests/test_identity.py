"""The client against a real server: setup, login and logout, API keys, the identity resources and
the errors they raise."""

from __future__ import annotations

import os

from svc_client import (
    APIError,
    AuthenticationError,
    BadRequestError,
    Client,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    SvcError,
)

from .support.fixtures import ServerTestCase, long_password, unique_name
from .support.server import ADMIN_PASSWORD, ADMIN_USERNAME, raw_request


class AssertsErrors(ServerTestCase):
    def assert_api_error(self, error_class: type, status: int, code: str, call: object, *args: object, **kwargs: object) -> APIError:
        """``call(*args, **kwargs)`` raises ``error_class`` with ``status`` and ``code``, the server's message and request id."""
        with self.assertRaises(error_class) as caught:
            call(*args, **kwargs)  # type: ignore[operator]
        error = caught.exception
        self.assertIsInstance(error, APIError)
        self.assertEqual(error.status, status)
        self.assertEqual(error.code, code)
        self.assertIsInstance(error.request_id, str, "the server's X-Request-Id is on the error")
        self.assertEqual(error.message, error.body["detail"], "the message is the server's")
        return error


class SetupTest(AssertsErrors):
    set_up_admin = False

    def test_creates_the_first_admin_once(self) -> None:
        client = Client(self.base_url)
        status = client.setup.status()
        self.assertEqual(status, {"needs_setup": True, "initialized": False, "password_min_length": 15})
        admin = client.setup.create_admin(ADMIN_USERNAME, ADMIN_PASSWORD)
        self.assertEqual(admin["username"], ADMIN_USERNAME)
        self.assertIn("admin", admin["permissions"])
        self.assertFalse(client.setup.status()["needs_setup"])
        error = self.assert_api_error(
            PermissionDeniedError, 403, "setup_already_completed", client.setup.create_admin, "other", ADMIN_PASSWORD
        )
        self.assertTrue(str(error).startswith("403 Forbidden (setup_already_completed): "), str(error))

    def test_health_is_public(self) -> None:
        client = Client(self.base_url)
        self.assertEqual(client.health.status()["status"], "ok")
        self.assertEqual(client.health.ready(), {"status": "ready"})
        self.assertEqual(client.health.auth_enabled(), {"auth": True})


class LoginTest(AssertsErrors):
    def test_login_sends_the_access_token_on_later_calls(self) -> None:
        client = Client(self.base_url)
        pair = client.login(ADMIN_USERNAME, ADMIN_PASSWORD)
        self.assertEqual(pair["token_type"], "bearer")
        self.assertGreater(pair["expires_in"], 0)
        self.assertTrue(client.logged_in)
        me = client.auth.me()
        self.assertEqual((me["username"], me["auth_type"], me["api_key"]), (ADMIN_USERNAME, "jwt", None))

    def test_a_wrong_password_reads_clearly(self) -> None:
        client = Client(self.base_url)
        error = self.assert_api_error(AuthenticationError, 401, "invalid_credentials", client.login, ADMIN_USERNAME, "not the password at all")
        self.assertEqual(
            str(error), "401 Unauthorized (invalid_credentials): Incorrect username or password — log in again or check the API key"
        )
        self.assertFalse(client.logged_in)

    def test_without_credentials_calls_fail_with_missing_credentials(self) -> None:
        self.assert_api_error(AuthenticationError, 401, "missing_credentials", Client(self.base_url).auth.me)

    def test_the_session_token_is_preferred_over_the_api_key(self) -> None:
        client = self.admin()
        self.assertEqual(client.auth.me()["auth_type"], "api_key")
        client.login(ADMIN_USERNAME, ADMIN_PASSWORD)
        self.assertEqual(client.auth.me()["auth_type"], "jwt")
        client.logout()
        self.assertEqual(client.auth.me()["auth_type"], "api_key", "after logout the API key is used again")

    def test_logout_revokes_the_refresh_token(self) -> None:
        client = Client(self.base_url)
        client.login(ADMIN_USERNAME, ADMIN_PASSWORD)
        refresh_token = client._requester.session.stored.refresh_token  # type: ignore[union-attr]
        client.logout()
        self.assertFalse(client.logged_in)
        self.assert_api_error(AuthenticationError, 401, "missing_credentials", client.auth.me)
        with self.assertRaises(Exception) as caught:
            raw_request(self.base_url, "POST", "/v1/auth/refresh", {"refresh_token": refresh_token})
        self.assertEqual(getattr(caught.exception, "code", None), 401)

    def test_logout_without_a_session_does_nothing(self) -> None:
        client = Client(self.base_url)
        client.logout()
        self.assertFalse(client.logged_in)

    def test_change_password_keeps_the_client_working(self) -> None:
        user = self.new_user("models:list")
        client = Client(self.base_url)
        client.login(user["username"], user["password"])
        other = Client(self.base_url)
        other.login(user["username"], user["password"])
        pair = client.auth.change_password(user["password"], "a brand new long passphrase")
        self.assertIn("access_token", pair)
        self.assertEqual(client.auth.me()["id"], user["id"])
        self.assert_api_error(AuthenticationError, 401, "invalid_token", other.auth.me)
        self.assert_api_error(AuthenticationError, 401, "invalid_credentials", Client(self.base_url).login, user["username"], user["password"])

    def test_a_wrong_current_password_is_refused(self) -> None:
        user = self.new_user("models:list")
        client = Client(self.base_url)
        client.login(user["username"], user["password"])
        self.assert_api_error(
            PermissionDeniedError, 403, "current_password_incorrect", client.auth.change_password, "not my password at all", "a brand new long passphrase"
        )


class ApiKeyTest(AssertsErrors):
    def test_an_api_key_authenticates(self) -> None:
        me = self.admin().auth.me()
        self.assertEqual((me["username"], me["auth_type"]), (ADMIN_USERNAME, "api_key"))
        self.assertIsNotNone(me["api_key"])

    def test_the_api_key_may_be_a_function_called_per_request(self) -> None:
        key = self.admin().keys.create(unique_name("rotating-"))["key"]
        calls = []

        def current_key() -> str:
            calls.append(1)
            return key

        client = Client(self.base_url, api_key=current_key)
        client.auth.me()
        client.auth.me()
        self.assertEqual(len(calls), 2)

    def test_a_bad_key_reads_clearly(self) -> None:
        client = Client(self.base_url, api_key="sk-svc-" + "A" * 49)
        error = self.assert_api_error(AuthenticationError, 401, "invalid_api_key", client.auth.me)
        self.assertTrue(str(error).startswith("401 Unauthorized (invalid_api_key): "), str(error))
        self.assertTrue(str(error).endswith(" — log in again or check the API key"), str(error))

    def test_defaults_come_from_the_environment(self) -> None:
        key = self.admin().keys.create(unique_name("env-"))
        os.environ["SVC_ENDPOINT"] = self.base_url + "/"
        os.environ["SVC_API_KEY"] = key["key"]
        try:
            client = Client()
            self.assertEqual(client.base_url, self.base_url)
            self.assertEqual(client.openai_base_url, self.base_url + "/v1")
            self.assertEqual(client.auth.me()["api_key"]["id"], key["id"])  # type: ignore[index]
        finally:
            del os.environ["SVC_ENDPOINT"], os.environ["SVC_API_KEY"]

    def test_a_client_needs_a_base_url(self) -> None:
        with self.assertRaises(SvcError) as caught:
            Client()
        self.assertIn("SVC_ENDPOINT", str(caught.exception))

    def test_rejects_nonsense_options(self) -> None:
        with self.assertRaises(ValueError):
            Client(self.base_url, timeout=0)
        with self.assertRaises(ValueError):
            Client(self.base_url, max_retries=-1)


class UsersTest(AssertsErrors):
    def test_create_get_list_update_delete(self) -> None:
        admin = self.admin()
        username = unique_name("carol")
        carol = admin.users.create(username, long_password(username), permissions=["models:list", "models:start"], must_change_password=True)
        self.assertEqual(carol["permissions"], ["models:list", "models:write"], "legacy names are mapped")
        self.assertTrue(carol["must_change_password"])
        self.assertEqual(admin.users.get(carol["id"]), carol)
        self.assertIn(carol["id"], [user["id"] for user in admin.users.list()])
        disabled = admin.users.update(carol["id"], enabled=False)
        self.assertFalse(disabled["enabled"])
        # A disabled account cannot log in (and the answer does not say whether it exists).
        self.assert_api_error(AuthenticationError, 401, "invalid_credentials", Client(self.base_url).login, username, long_password(username))
        updated = admin.users.update(carol["id"], enabled=True, permissions=["models:read"])
        self.assertEqual((updated["enabled"], updated["permissions"]), (True, ["models:read"]))
        admin.users.delete(carol["id"])
        self.assert_api_error(NotFoundError, 404, "user_not_found", admin.users.get, carol["id"])

    def test_permissions(self) -> None:
        admin = self.admin()
        user = self.new_user("models:list")
        self.assertEqual(admin.users.get_permissions(user["id"]), ["models:list"])
        self.assertEqual(admin.users.set_permissions(user["id"], ["models:list", "keys:create"]), ["models:list", "keys:create"])
        self.assertEqual(admin.users.get(user["id"])["permissions"], ["models:list", "keys:create"])

    def test_set_password(self) -> None:
        admin = self.admin()
        user = self.new_user("models:list")
        admin.users.set_password(user["id"], "the administrator chose this one", must_change_password=True)
        client = Client(self.base_url)
        pair = client.login(user["username"], "the administrator chose this one")
        self.assertTrue(pair.get("must_change_password"))

    def test_errors(self) -> None:
        admin = self.admin()
        user = self.new_user("models:list")
        error = self.assert_api_error(ConflictError, 409, "username_taken", admin.users.create, user["username"], long_password("x"))
        self.assertTrue(str(error).startswith("409 Conflict (username_taken): "), str(error))
        error = self.assert_api_error(BadRequestError, 400, "password_too_short", admin.users.create, unique_name("dan"), "short")
        self.assertEqual(error.message, "Password must be at least 15 characters long")
        self.assert_api_error(NotFoundError, 404, "user_not_found", admin.users.get, "no-such-user")
        self.assert_api_error(BadRequestError, 400, "invalid_request", admin.users.update, user["id"])
        me = admin.auth.me()
        self.assert_api_error(PermissionDeniedError, 403, "cannot_modify_self", admin.users.update, me["id"], enabled=False)

    def test_a_missing_permission_reads_clearly(self) -> None:
        user = self.new_user("models:list")
        client = Client(self.base_url)
        client.login(user["username"], user["password"])
        error = self.assert_api_error(PermissionDeniedError, 403, "permission_denied", client.users.list)
        self.assertEqual(
            str(error),
            f"403 Forbidden (permission_denied): {error.message} — ask an administrator for the permission, or use a key that holds it",
        )
        self.assertIn("users:manage", error.message)

    def test_ids_are_escaped_into_one_path_segment(self) -> None:
        self.assert_api_error(BadRequestError, 400, "invalid_request", self.admin().users.get, "../keys")


class KeysTest(AssertsErrors):
    def test_create_reveal_update_delete(self) -> None:
        admin = self.admin()
        created = admin.keys.create(
            unique_name("notebook-"),
            description="for tests",
            model_permissions=[{"permission_type": "model_id", "permission_value": "qwen-chat"}],
            permissions=["models:list"],
        )
        self.assertTrue(created["key"].startswith("sk-svc-"))
        self.assertEqual(created["prefix"], created["key_prefix"])
        self.assertEqual(admin.keys.reveal(created["id"]), created["key"])
        listed = admin.keys.get(created["id"])
        self.assertNotIn("key", listed)
        self.assertEqual(listed["permissions"], ["models:list"])
        self.assertIn(created["id"], [key["id"] for key in admin.keys.list()])

        key_client = Client(self.base_url, api_key=created["key"])
        self.assertEqual(key_client.auth.me()["permissions"], ["models:list"])

        updated = admin.keys.update(created["id"], name="renamed", description=None, expires_at="2999-01-01T00:00:00Z", permissions=None)
        self.assertEqual((updated["name"], updated["description"], updated["permissions"]), ("renamed", None, None))
        self.assertEqual(updated["expires_at"][:4], "2999")  # type: ignore[index]
        self.assertIsNone(admin.keys.update(created["id"], expires_at=None)["expires_at"])
        self.assertFalse(admin.keys.update(created["id"], enabled=False)["enabled"])
        self.assert_api_error(AuthenticationError, 401, "api_key_disabled", key_client.auth.me)
        admin.keys.delete(created["id"])
        self.assert_api_error(NotFoundError, 404, "api_key_not_found", admin.keys.get, created["id"])
        self.assert_api_error(AuthenticationError, 401, "invalid_api_key", key_client.auth.me)

    def test_model_permissions(self) -> None:
        admin = self.admin()
        created = admin.keys.create(unique_name("scoped-"))
        self.assertEqual(admin.keys.get_model_permissions(created["id"]), [{"permission_type": "all", "permission_value": None}])
        restricted = [{"permission_type": "model_type", "permission_value": "embedding"}]
        self.assertEqual(admin.keys.set_model_permissions(created["id"], restricted), restricted)  # type: ignore[arg-type]
        self.assertEqual(admin.keys.get(created["id"])["model_permissions"], restricted)
        self.assertEqual(admin.keys.set_model_permissions(created["id"], []), [])
        self.assertEqual(admin.keys.update(created["id"], model_permissions=restricted)["model_permissions"], restricted)  # type: ignore[arg-type]

    def test_keys_of_another_owner(self) -> None:
        admin = self.admin()
        user = self.new_user("models:list", "keys:create")
        theirs = admin.keys.create(unique_name("theirs-"), owner=user["id"])
        self.assertEqual(theirs["user_id"], user["id"])
        self.assertEqual([key["id"] for key in admin.keys.list(owner=user["id"])], [theirs["id"]])

        owner = Client(self.base_url)
        owner.login(user["username"], user["password"])
        own = owner.keys.create(unique_name("own-"))
        self.assertEqual({key["id"] for key in owner.keys.list()}, {theirs["id"], own["id"]})
        self.assert_api_error(PermissionDeniedError, 403, "permission_denied", owner.keys.reveal, own["id"])
        owner.keys.update(own["id"], enabled=False)
        owner.keys.delete(own["id"])
        self.assertEqual([key["id"] for key in owner.keys.list()], [theirs["id"]])
