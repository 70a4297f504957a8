"""The model resources against a real server: launch, list, get, terminate; registrations; chat,
plain and streamed; and the permission and key-restriction errors they raise."""

from __future__ import annotations

from typing import Any, List

from svc_client import (
    AuthenticationError,
    BadRequestError,
    Client,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
)

from tests.support.fixtures import ServerTestCase, unique_name

HELLO = [{"role": "user", "content": "Hello"}]


class ModelsTest(ServerTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.client = self.admin()

    def launch_echo(self, family: str = "echo") -> str:
        uid = unique_name("m-")
        model = self.client.models.launch(family, model_uid=uid, model_engine="builtin")
        self.addCleanup(self._terminate_quietly, uid)
        return model["model_uid"]

    def _terminate_quietly(self, uid: str) -> None:
        try:
            self.client.models.terminate(uid)
        except NotFoundError:
            pass

    def test_launch_list_get_terminate(self) -> None:
        uid = unique_name("m-")
        model = self.client.models.launch("echo", model_uid=uid)
        self.assertEqual((model["id"], model["model_uid"], model["model_name"], model["model_type"]), (uid, uid, "echo", "LLM"))
        self.assertEqual((model["model_engine"], model["upstream"]), ("builtin", None))
        self.assertIn(uid, [m["id"] for m in self.client.models.list()])
        self.assertEqual(self.client.models.get(uid)["model_uid"], uid)
        self.assertEqual(self.client.models.terminate(uid)["model_uid"], uid)
        self.assertNotIn(uid, [m["id"] for m in self.client.models.list()])
        with self.assertRaises(NotFoundError) as caught:
            self.client.models.get(uid)
        self.assertEqual(caught.exception.code, "model_not_found")

    def test_launch_errors(self) -> None:
        uid = self.launch_echo()
        with self.assertRaises(ConflictError) as caught:
            self.client.models.launch("echo", model_uid=uid)
        self.assertEqual(caught.exception.code, "model_uid_taken")
        with self.assertRaises(BadRequestError) as bad:
            self.client.models.launch("echo", model_uid=unique_name("m-"), model_engine="upstream")
        self.assertEqual(bad.exception.param, "upstream_base_url")

    def test_chat_complete(self) -> None:
        uid = self.launch_echo()
        chat = self.client.chat.complete(uid, HELLO, max_tokens=50)
        self.assertEqual(chat["object"], "chat.completion")
        self.assertEqual(chat["model"], uid)
        self.assertEqual(chat["choices"][0]["message"]["content"], "Hello")

    def test_chat_stream(self) -> None:
        uid = self.launch_echo()
        chunks: List[Any] = list(self.client.chat.stream(uid, [{"role": "user", "content": "Hello there, streaming world"}]))
        self.assertGreaterEqual(len(chunks), 1)
        self.assertTrue(all(chunk["object"] == "chat.completion.chunk" for chunk in chunks))
        text = "".join(chunk["choices"][0]["delta"].get("content") or "" for chunk in chunks if chunk["choices"])
        self.assertEqual(text, "Hello there, streaming world")

    def test_a_stream_closed_early_releases_the_connection(self) -> None:
        uid = self.launch_echo()
        stream = self.client.chat.stream(uid, [{"role": "user", "content": "one two three four five six"}])
        first = next(stream)
        self.assertEqual(first["object"], "chat.completion.chunk")
        stream.close()  # type: ignore[attr-defined]
        self.assertEqual(self.client.chat.complete(uid, HELLO)["choices"][0]["message"]["content"], "Hello")

    def test_a_stream_refused_before_the_first_chunk_raises(self) -> None:
        with self.assertRaises(NotFoundError):
            next(iter(self.client.chat.stream("no-such-model", HELLO)))

    def test_the_system_message_must_come_first_for_some_families(self) -> None:
        uid = self.launch_echo("echo-system-first")
        messages = [{"role": "user", "content": "Hi"}, {"role": "system", "content": "Be brief"}]
        with self.assertRaises(BadRequestError) as caught:
            self.client.chat.complete(uid, messages)
        self.assertIn("messages[0]", caught.exception.message)

    def test_registrations(self) -> None:
        name = unique_name("fam-")
        family = self.client.registrations.register("LLM", {"model_name": name, "model_ability": ["chat"], "requires_system_message_first": True})
        self.assertEqual((family["model_name"], family["model_type"], family["is_builtin"]), (name, "LLM", False))
        self.assertIn(name, [f["model_name"] for f in self.client.registrations.list("LLM")])
        self.assertIn("echo", [f["model_name"] for f in self.client.registrations.list("LLM")])
        described = self.client.registrations.get("LLM", name)
        self.assertEqual((described["model_name"], described["model_ability"], described["requires_system_message_first"]), (name, ["chat"], True))
        with self.assertRaises(NotFoundError):
            self.client.registrations.get("LLM", unique_name("missing-"))
        uid = unique_name("m-")
        self.client.models.launch(name, model_uid=uid)
        with self.assertRaises(ConflictError) as in_use:
            self.client.registrations.unregister("LLM", name)
        self.assertEqual(in_use.exception.code, "model_family_in_use")
        self.client.models.terminate(uid)
        self.client.registrations.unregister("LLM", name)
        self.assertNotIn(name, [f["model_name"] for f in self.client.registrations.list("LLM")])
        with self.assertRaises(PermissionDeniedError) as builtin:
            self.client.registrations.unregister("LLM", "echo")
        self.assertEqual(builtin.exception.code, "builtin_model_family")

    def test_permissions_guard_the_model_routes(self) -> None:
        uid = self.launch_echo()
        user = self.new_user("models:list")
        client = Client(self.base_url)
        client.login(user["username"], user["password"])
        self.assertIn(uid, [m["id"] for m in client.models.list()])
        for call in (lambda: client.chat.complete(uid, HELLO), lambda: client.models.terminate(uid), lambda: client.registrations.register("LLM", {"model_name": unique_name("f-")})):
            with self.assertRaises(PermissionDeniedError) as caught:
                call()
            self.assertEqual(caught.exception.code, "permission_denied")
            self.assertTrue(str(caught.exception).startswith("403 Forbidden (permission_denied): "))
        with self.assertRaises(AuthenticationError):
            Client(self.base_url).models.list()

    def test_a_restricted_key_reaches_only_its_models(self) -> None:
        allowed = self.launch_echo()
        other = self.launch_echo()
        key = self.client.keys.create(unique_name("k-"), model_permissions=[{"permission_type": "model_id", "permission_value": allowed}])
        restricted = Client(self.base_url, api_key=key["key"])
        self.assertEqual([m["id"] for m in restricted.models.list()], [allowed])
        self.assertEqual(restricted.chat.complete(allowed, HELLO)["choices"][0]["message"]["content"], "Hello")
        with self.assertRaises(PermissionDeniedError) as caught:
            restricted.chat.complete(other, HELLO)
        self.assertEqual(caught.exception.code, "model_access_denied")
        self.assertIn(other, caught.exception.message)
        with self.assertRaises(PermissionDeniedError):
            next(iter(restricted.chat.stream(other, HELLO)))
