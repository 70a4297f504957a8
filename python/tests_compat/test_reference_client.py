"""The reference server's Python client (``xinference.client.RESTfulClient``) and CLI against svc,
request by request: each test sends the very bytes a client method sends (method, path, query, the
``json.dumps`` body with its nulls, ``requests``'s headers) and checks what that method checks — the
status (exactly 200 where the client demands it) and the fields it reads, without defaults.

Sources: ``xinference/client/restful/restful_client.py``, ``async_restful_client.py`` and
``xinference/deploy/cmdline.py`` of ``xorbitsai/inference`` (wire notes in ``docs/compatibility.md``)."""

from __future__ import annotations

import json
import unittest
from typing import Any, ClassVar, Dict, List

from tests.support.server import ADMIN_PASSWORD, ADMIN_USERNAME, SvcServer, set_up_admin

from .wire import async_launch_body, launch_body, send


class ReferenceClientTest(unittest.TestCase):
    """One server for the class; ``key`` is an API key of the administrator (as ``-ak`` / ``api_key=``)."""

    server: ClassVar[SvcServer]
    base_url: ClassVar[str]
    key: ClassVar[str]

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = SvcServer()
        cls.addClassCleanup(cls.server.stop)
        cls.base_url = cls.server.base_url
        cls.key = set_up_admin(cls.base_url)

    def send(self, method: str, path: str, body: Any = None, token: Any = "key") -> Any:
        return send(self.base_url, method, path, body, self.key if token == "key" else token)

    def launch(self, body: Dict[str, Any], query: str = "") -> str:
        """``launch_model``: requires 200, returns ``body["model_uid"]``."""
        answer = self.send("POST", "/v1/models" + query, body)
        self.assertEqual(answer.status, 200, answer.body)
        return answer.json()["model_uid"]

    # Client.__init__ and login

    def test_init_probes_cluster_auth_without_credentials(self) -> None:
        answer = self.send("GET", "/v1/cluster/auth", token=None)
        self.assertEqual(answer.status, 200)
        # Only {"auth": true} makes the client send its api_key at all.
        self.assertIs(bool(answer.json()["auth"]), True)

    def test_login_posts_json_to_token_and_reads_access_token(self) -> None:
        answer = self.send("POST", "/token", {"username": ADMIN_USERNAME, "password": ADMIN_PASSWORD}, token=None)
        self.assertEqual(answer.status, 200)
        token = answer.json()["access_token"]
        self.assertEqual(self.send("GET", "/v1/models", token=token).status, 200)

    def test_login_failure_has_a_detail_the_client_indexes(self) -> None:
        answer = self.send("POST", "/token", {"username": ADMIN_USERNAME, "password": "wrong password, certainly"}, token=None)
        self.assertEqual(answer.status, 401)
        self.assertIsInstance(answer.detail(), str)

    # Model methods

    def test_list_models_reads_data_and_id(self) -> None:
        uid = self.launch(launch_body("echo", model_uid="listed"))
        answer = self.send("GET", "/v1/models")
        self.assertEqual(answer.status, 200)
        models = {item["id"]: item for item in answer.json()["data"]}
        self.assertIn(uid, models)

    def test_launch_model_sync_body_with_nulls_generates_the_uid(self) -> None:
        first = self.launch(launch_body("hash-embedding", model_type="embedding"))
        second = self.launch(launch_body("hash-embedding", model_type="embedding"))
        self.assertEqual(first, "hash-embedding")
        self.assertTrue(second.startswith("hash-embedding-"), second)

    def test_launch_model_async_body(self) -> None:
        uid = self.launch(async_launch_body("echo", model_engine="transformers"))
        self.assertTrue(uid.startswith("echo"), uid)

    def test_cli_launch_with_engine_of_the_reference_server(self) -> None:
        """``xinference launch -n echo -en vllm -u cli-echo``: ``?wait_ready=False``, ``trust_remote_code`` appended."""
        body = launch_body("echo", model_engine="vllm", model_uid="cli-echo")
        body["trust_remote_code"] = True
        answer = self.send("POST", "/v1/models?wait_ready=False", body)
        self.assertEqual(answer.status, 200, answer.body)
        self.assertEqual(answer.json()["model_uid"], "cli-echo")
        self.assertIn("vllm", answer.headers["Warning"])
        self.assertEqual(answer.json()["model_engine"], "builtin")
        # Then the CLI polls until every instance is READY, ERROR or TERMINATED, reading the progress otherwise.
        instances = self.send("GET", "/v1/models/instances?model_name=echo&model_uid=cli-echo")
        self.assertEqual(instances.status, 200)
        self.assertEqual([item["status"] for item in instances.json()], ["READY"])
        progress = self.send("GET", "/v1/models/cli-echo/progress")
        self.assertEqual((progress.status, progress.json()["progress"]), (200, 1.0))

    def test_launch_refusal_carries_a_detail(self) -> None:
        answer = self.send("POST", "/v1/models", launch_body("no-such-family"))
        self.assertEqual(answer.status, 404)
        self.assertIn("no-such-family", answer.detail())

    def test_get_model_and_describe_model(self) -> None:
        uid = self.launch(launch_body("echo", model_uid="described"))
        answer = self.send("GET", f"/v1/models/{uid}")
        self.assertEqual(answer.status, 200)
        description = answer.json()
        # get_model picks its handle from these two fields.
        self.assertEqual(description["model_type"], "LLM")
        self.assertIn("chat", description["model_ability"])

    def test_terminate_model_answers_200(self) -> None:
        uid = self.launch(launch_body("echo", model_uid="terminated"))
        self.assertEqual(self.send("DELETE", f"/v1/models/{uid}").status, 200)
        self.assertEqual(self.send("GET", f"/v1/models/{uid}").status, 404)

    def test_cli_list_reads_fields_without_defaults(self) -> None:
        """``xinference list``: LLM → model_name, model_format, model_size_in_billions, quantization; embedding → model_name, dimensions."""
        self.launch(launch_body("echo", model_uid="for-list"))
        self.launch(launch_body("hash-embedding", model_type="embedding", model_uid="embed-for-list"))
        for model in self.send("GET", "/v1/models").json()["data"]:
            if model["model_type"] == "LLM":
                [model[field] for field in ("model_name", "model_format", "model_size_in_billions", "quantization")]
            elif model["model_type"] == "embedding":
                self.assertEqual((model["model_name"], model["dimensions"]), ("hash-embedding", 64))

    # Registrations

    def test_register_get_list_unregister(self) -> None:
        definition = json.dumps({"model_name": "ref-family", "model_lang": ["en"], "model_ability": ["chat", "generate"], "context_length": 2048})
        registered = self.send("POST", "/v1/model_registrations/LLM", {"model": definition, "worker_ip": None, "persist": False})
        self.assertEqual(registered.status, 200, registered.body)
        registered.json()  # the client returns response.json()

        listed = self.send("GET", "/v1/model_registrations/LLM?detailed=false")
        self.assertEqual(listed.status, 200)
        names = [(item["model_name"], item["is_builtin"]) for item in listed.json()]
        self.assertIn(("ref-family", False), names)

        one = self.send("GET", "/v1/model_registrations/LLM/ref-family")
        self.assertEqual(one.status, 200)
        family = one.json()
        self.assertEqual((family["model_name"], family["model_lang"], family["model_ability"]), ("ref-family", ["en"], ["chat", "generate"]))

        unregistered = self.send("DELETE", "/v1/model_registrations/LLM/ref-family")
        self.assertEqual(unregistered.status, 200)
        unregistered.json()
        self.assertEqual(self.send("GET", "/v1/model_registrations/LLM/ref-family").status, 404)

    def test_cli_registrations_reads_each_family(self) -> None:
        """``xinference registrations -t LLM`` and ``-t embedding``: one GET per listed family."""
        reads = {"LLM": ("model_name", "model_lang", "model_ability"), "embedding": ("model_name", "language", "dimensions")}
        for model_type, fields in reads.items():
            for item in self.send("GET", f"/v1/model_registrations/{model_type}?detailed=false").json():
                item["is_builtin"]
                family = self.send("GET", f"/v1/model_registrations/{model_type}/{item['model_name']}")
                self.assertEqual(family.status, 200, family.body)
                [family.json()[field] for field in fields]

    def test_async_client_lists_registrations_without_a_query(self) -> None:
        answer = self.send("GET", "/v1/model_registrations/LLM")
        self.assertEqual(answer.status, 200)
        self.assertIn("echo", [item["model_name"] for item in answer.json()])

    def test_list_cached_models_reads_list(self) -> None:
        answer = self.send("GET", "/v1/cache/models")
        self.assertEqual(answer.status, 200)
        self.assertIsInstance(answer.json().get("list"), list)

    # Model handles

    def test_chat_handle_streams_as_the_cli_asks(self) -> None:
        """``xinference chat``: generate_config ``{"stream": True, "max_tokens": 512}``."""
        uid = self.launch(launch_body("echo", model_uid="chatty"))
        body = {"model": uid, "messages": [{"role": "user", "content": "caf\u00e9"}], "stream": True, "max_tokens": 512}
        answer = self.send("POST", "/v1/chat/completions", body)
        self.assertEqual(answer.status, 200)
        text = "".join(chunk["choices"][0]["delta"].get("content") or "" for chunk in answer.sse_payloads())
        self.assertEqual(text, "caf\u00e9")

    def test_chat_handle_plain(self) -> None:
        uid = self.launch(launch_body("echo", model_uid="plain-chat"))
        answer = self.send("POST", "/v1/chat/completions", {"model": uid, "messages": [{"role": "user", "content": "hi"}]})
        self.assertEqual(answer.status, 200)
        self.assertEqual(answer.json()["choices"][0]["message"]["content"], "hi")

    def test_generate_handle(self) -> None:
        uid = self.launch(launch_body("echo", model_uid="generator"))
        answer = self.send("POST", "/v1/completions", {"model": uid, "prompt": "once", "stream": False, "max_tokens": 512})
        self.assertEqual(answer.status, 200)
        self.assertIsInstance(answer.json()["choices"][0]["text"], str)

    def test_embedding_handle(self) -> None:
        uid = self.launch(launch_body("hash-embedding", model_type="embedding", model_uid="embedder"))
        answer = self.send("POST", "/v1/embeddings", {"model": uid, "input": ["a", "b"]})
        self.assertEqual(answer.status, 200)
        self.assertEqual([len(item["embedding"]) for item in answer.json()["data"]], [64, 64])

    def test_errors_without_credentials_carry_detail(self) -> None:
        """With auth on, a call without the key fails the client's 200 check with a readable detail."""
        answer = self.send("GET", "/v1/models", token=None)
        self.assertEqual(answer.status, 401)
        self.assertIsInstance(answer.detail(), str)
        wrong = self.send("GET", "/v1/models", token="sk-" + "a" * 13)
        self.assertEqual(wrong.status, 401)
        self.assertIsInstance(wrong.detail(), str)


class ReferenceWebUiTest(unittest.TestCase):
    """The reference web UI's requests (``fetchWrapper.js``: ``JSON.stringify`` bodies, Bearer token)."""

    server: ClassVar[SvcServer]
    base_url: ClassVar[str]
    token: ClassVar[str]

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = SvcServer()
        cls.addClassCleanup(cls.server.stop)
        cls.base_url = cls.server.base_url
        set_up_admin(cls.base_url)
        cls.token = send(cls.base_url, "POST", "/token", {"username": ADMIN_USERNAME, "password": ADMIN_PASSWORD}).json()["access_token"]

    def ui(self, method: str, path: str, body: Any = None) -> Any:
        return send(self.base_url, method, path, body, self.token)

    def test_login_page_reads_ui_config_without_credentials(self) -> None:
        config = send(self.base_url, "GET", "/v1/cluster/ui_config").json()
        self.assertEqual((config["auth_advanced"], config["oidc_enabled"], config["es_enabled"]), (True, False, False))

    def test_version_label(self) -> None:
        self.assertRegex(self.ui("GET", "/v1/cluster/version").json()["version"], r"^\d+\.\d+\.\d+$")

    def test_key_page_create_edit_toggle_and_bans(self) -> None:
        created = self.ui("POST", "/v1/admin/keys", {"expires_at": "2099-12-31T23:59:59", "model_permissions": [{"permission_type": "all", "permission_value": None}]})
        self.assertEqual(created.status, 201, created.body)
        key = created.json()
        self.assertTrue(key["key"])
        self.assertEqual(key["expires_at"], "2099-12-31T23:59:59.000Z")
        edited = self.ui("PUT", f"/v1/admin/keys/{key['id']}", {"name": None, "description": None, "expires_at": None, "model_permissions": [{"permission_type": "model_type", "permission_value": "LLM"}]})
        self.assertEqual(edited.status, 200, edited.body)
        self.assertEqual(edited.json()["name"], key["name"])
        self.assertEqual(self.ui("PUT", f"/v1/admin/keys/{key['id']}", {"enabled": False}).json()["enabled"], False)
        self.assertEqual(self.ui("PUT", f"/v1/admin/keys/{key['id']}", {"enabled": 1}).json()["enabled"], True)
        bans = self.ui("GET", f"/v1/admin/keys/{key['id']}/banned")
        self.assertEqual((bans.status, bans.json()), (200, []))
        unban = self.ui("POST", f"/v1/admin/keys/{key['id']}/unban", {"ip": "10.0.0.1"})
        self.assertEqual(unban.status, 200)

    def test_per_key_thresholds_from_the_api(self) -> None:
        created = self.ui("POST", "/v1/admin/keys", {"name": "ci", "rate_limit_max_failures": 2, "rate_limit_window_seconds": 300, "rate_limit_ban_seconds": 300}).json()
        self.assertEqual(
            (created["rate_limit_max_failures"], created["rate_limit_window_seconds"], created["rate_limit_ban_seconds"]),
            (2, 300, 300),
        )
        self.ui("PUT", f"/v1/admin/keys/{created['id']}", {"enabled": 0})
        statuses: List[int] = [send(self.base_url, "GET", "/v1/models", token=created["key"]).status for _ in range(3)]
        self.assertEqual(statuses, [401, 401, 429])
        bans = self.ui("GET", f"/v1/admin/keys/{created['id']}/banned").json()
        self.assertEqual(len(bans), 1)
        self.assertEqual(self.ui("POST", f"/v1/admin/keys/{created['id']}/unban-all").json(), {"unbanned": 1})

    def test_audit_records_carry_at_timestamp(self) -> None:
        hits = self.ui("GET", "/v1/audit/search?time_from=now-1h&size=5").json()["hits"]
        self.assertTrue(hits)
        for hit in hits:
            self.assertRegex(hit["@timestamp"], r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
            self.assertEqual(hit["@timestamp"], hit["timestamp"])


class AuthenticationOffTest(unittest.TestCase):
    """``{"auth": false}``: the reference client then drops its api_key and sends no Authorization."""

    server: ClassVar[SvcServer]

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = SvcServer({"SVC_AUTH_ADVANCED": "false"})
        cls.addClassCleanup(cls.server.stop)

    def test_probe_and_unauthenticated_calls(self) -> None:
        base_url = self.server.base_url
        self.assertEqual(send(base_url, "GET", "/v1/cluster/auth").json(), {"auth": False})
        answer = send(base_url, "POST", "/v1/models", launch_body("echo"))
        self.assertEqual(answer.status, 200, answer.body)
        self.assertEqual(send(base_url, "GET", "/v1/models").json()["data"][0]["id"], "echo")
        self.assertEqual(send(base_url, "DELETE", "/v1/models/echo").status, 200)


