"""The web pages of the service (job list, submit form, results and replay)."""
from fastapi import APIRouter

router = APIRouter()
