#!/bin/sh
echo "{\"code\": \"NO_PROGRESS\", \"reason\": \"nothing new\"}"
