# Build the Windows app and installer:  powershell -File installer\windows\build_windows.ps1
$ErrorActionPreference = "Stop"
$root = Resolve-Path "$PSScriptRoot\..\.."
Set-Location $root
$version = (Select-String -Path desktop/findling/__init__.py -Pattern '^__version__ = "(.+)"').Matches[0].Groups[1].Value
python -m pip install -e . pyinstaller==6.22.3
pyinstaller --noconfirm --distpath dist --workpath build installer\findling.spec
# The console executable prints its report and exits with its status; it also checks that
# Findling.exe is beside it and that `findling-cli mcp` answers over stdio.
& dist\Findling\findling-cli.exe --selftest
if ($LASTEXITCODE -ne 0) { throw "selftest (findling-cli.exe) failed" }
# Findling.exe is a windowed app: wait for it explicitly to read its exit status, and
# read its report from a file (a windowed process has no console to print to).
$report = Join-Path $env:TEMP "findling-selftest.txt"
$env:FINDLING_SELFTEST_REPORT = $report
$proc = Start-Process -FilePath dist\Findling\Findling.exe -ArgumentList "--selftest" -Wait -PassThru -NoNewWindow
Get-Content $report
if ($proc.ExitCode -ne 0) { throw "selftest (Findling.exe) failed" }
python installer\bundle_size.py dist\Findling
makensis -WX "/DVERSION=$version" "/DSOURCE=$root\dist\Findling" "/DOUTFILE=$root\dist\Findling-$version-setup.exe" installer\windows\findling.nsi
$setup = Get-Item "$root\dist\Findling-$version-setup.exe"
Write-Output ("installer: {0:N0} MB" -f ($setup.Length / 1e6))
if ($setup.Length -gt 120e6) { throw "the installer is over its bound of 120 MB" }
