"""Tool results with images and errors (`toolcalls.providers._content` and each provider's
``result_messages``), every result message checked with the provider's SDK param types."""

from __future__ import annotations

import base64

import ollama
import pytest
from anthropic.types import ToolResultBlockParam
from anthropic.types.tool_result_block_param import Content as AnthropicResultContent
from google.genai import types as genai
from openai.types.chat import ChatCompletionToolMessageParam
from openai.types.responses.response_input_item_param import FunctionCallOutput
from pydantic import TypeAdapter
from weather import CALL

from toolcalls.providers import ToolImage, native_result_message, native_result_messages

PNG = b"\x89PNG\r\n\x1a\n-not-a-real-image"
IMAGE = ToolImage.from_bytes(PNG)
WITH_IMAGE = ["Radar for Paris:", IMAGE, ""]


def test_an_image_is_base64_and_a_data_url() -> None:
    assert base64.b64decode(IMAGE.data) == PNG
    assert IMAGE.data_url() == f"data:image/png;base64,{IMAGE.data}"
    assert ToolImage("QUJD", "image/jpeg").data_url() == "data:image/jpeg;base64,QUJD"


def test_a_list_without_images_is_still_a_json_value() -> None:
    (message,) = native_result_messages([(CALL, ["a", "b"])], "anthropic")
    assert message["content"][0]["content"] == '["a", "b"]'


def test_a_list_with_an_image_and_something_else_than_text_is_refused() -> None:
    with pytest.raises(TypeError, match="list of text and ToolImage"):
        native_result_message(CALL, [IMAGE, {"a": 1}], "anthropic")


def test_anthropic_takes_text_and_image_blocks_and_is_error() -> None:
    message = native_result_message(CALL, WITH_IMAGE, "anthropic", is_error=True)
    (block,) = message["content"]
    TypeAdapter(ToolResultBlockParam).validate_python(block)
    parts = TypeAdapter(list[AnthropicResultContent]).validate_python(block["content"])
    assert [p["type"] for p in parts] == ["text", "image"]  # the empty text is left out
    assert parts[1]["source"] == {"type": "base64", "media_type": "image/png",
                                  "data": IMAGE.data}
    assert block["is_error"] is True


def test_responses_takes_input_text_and_input_image_parts() -> None:
    (item,) = native_result_messages([(CALL, WITH_IMAGE)], "openai_responses")
    TypeAdapter(FunctionCallOutput).validate_python(item)
    assert item["output"] == [{"type": "input_text", "text": "Radar for Paris:"},
                              {"type": "input_image", "image_url": IMAGE.data_url()}]


def test_gemini_takes_images_as_parts_of_the_function_response() -> None:
    message = native_result_message(CALL, WITH_IMAGE, "gemini")
    response = genai.Content.model_validate(message).parts[0].function_response  # type: ignore[index]
    assert response is not None and response.response == {"result": "Radar for Paris:"}
    assert response.parts[0].inline_data.data == PNG  # type: ignore[index, union-attr]
    failed = native_result_message(CALL, [IMAGE], "gemini", is_error=True)
    assert failed["parts"][0]["functionResponse"]["response"] == {"error": ""}


def test_ollama_takes_base64_images_beside_the_text() -> None:
    """As the ollama SDK sends a message with an image (its `Image` dumps to base64)."""
    sent = ollama.Message(role="tool", tool_name="get_weather", content="Radar for Paris:",
                          images=[ollama.Image(value=IMAGE.data)])
    message = native_result_message(CALL, WITH_IMAGE, "ollama")
    assert message == sent.model_dump(exclude_none=True)


def test_openai_chat_refuses_images_in_a_tool_message() -> None:
    with pytest.raises(ValueError, match="only text in a tool message.*openai_responses"):
        native_result_message(CALL, IMAGE, "openai")


@pytest.mark.parametrize("provider", ["openai", "openai_responses", "ollama"])
def test_apis_without_an_error_flag_keep_the_result_as_it_is(provider: str) -> None:
    """These APIs have no error field: the result's own text must say it."""
    failed = native_result_message(CALL, "no such city", provider, is_error=True)
    assert failed == native_result_message(CALL, "no such city", provider)
    if provider == "openai":
        TypeAdapter(ChatCompletionToolMessageParam).validate_python(failed)
