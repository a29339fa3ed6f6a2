"""Gradio Space for the ForceBench metric; gradio is imported here only."""

from pathlib import Path

import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load(str(Path(__file__).parent))
launch_gradio_widget(module)
